import RESP

/// The logic of one pipelined Redis command connection, without sockets or clocks.
///
/// Modelled on async-http-client's `HTTP1ConnectionStateMachine`: every event is a `mutating`
/// method that returns the actions the I/O shell performs, in order. Time comes in with each
/// event (`now`, an offset from any fixed origin) and goes out as one timer to arm; reconnect
/// jitter comes from the generator given at `init`. So every rule below is tested by stepping
/// plain values.
///
/// Rules:
/// - Requests are written in submission order and replies matched first in, first out.
/// - A request whose deadline passes fails at once (`.timedOut`) but keeps its place: its late
///   reply is read and thrown away, so the replies after it still reach the right callers.
/// - If the oldest written request stays unanswered for `unansweredReplyLimit`, the server is
///   judged dead: the connection closes, every waiting caller fails, and it reconnects.
/// - While a connection is opening, requests queue (up to `maxPendingCommands`, each still bound
///   by its deadline), since a connect normally takes a millisecond. While waiting to reconnect
///   they fail at once (`.notConnected`): the backoff may last longer than any caller would
///   wait, a miss should pay at most one short Redis wait, and the breaker above counts these
///   failures to stop asking.
/// - Reconnects follow `ReconnectBackoff` (full jitter), reset by a successful handshake. A
///   refused `AUTH` or `SELECT` is permanent: no retry, and every request fails with it.
/// - An `EVALSHA` answered `NOSCRIPT` is sent again once as `EVAL` (at the pipeline's end, so
///   FIFO matching holds); its caller gets that reply.
public struct RedisCommandConnectionStateMachine: Sendable {
    enum State: Sendable {
        /// Not started.
        case idle
        case connecting(deadline: Duration)
        /// `remaining` are the handshake replies still expected, in order.
        case handshaking(deadline: Duration, remaining: ArraySlice<RedisHandshake.Step>)
        case ready
        case waitingToReconnect(at: Duration)
        /// The server refused our credentials or database.
        case refused(RedisClientError)
        /// Shut down while requests were in flight: their replies are awaited, nothing new sent.
        case draining
        case shutDown
    }

    public let url: RedisURL
    public let configuration: RedisCommandConnectionConfiguration
    let handshake: RedisHandshake
    var state = State.idle
    var reconnects: ReconnectSchedule
    var reader: RedisReplyReader
    /// Written requests, oldest first.
    var inFlight = PendingQueue()
    /// Requests submitted while the connection opens, written once the handshake succeeds.
    var queued = PendingQueue()
    var nextID: UInt64 = 1
    var timer = TimerSchedule()

    /// `random` draws the reconnect jitter: inject a seeded generator in tests.
    public init(
        url: RedisURL,
        configuration: RedisCommandConnectionConfiguration = RedisCommandConnectionConfiguration(),
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) {
        self.url = url
        self.configuration = configuration
        self.handshake = RedisHandshake(url: url, selectsDatabase: true)
        self.reconnects = ReconnectSchedule(backoff: configuration.backoff, random: random)
        self.reader = RedisReplyReader(limits: configuration.replyLimits)
    }

    /// Whether requests are written as they come (the handshake succeeded).
    public var isConnected: Bool {
        if case .ready = state { return true }
        return false
    }

    /// Whether it has shut down and closed: nothing is in flight and nothing will be written.
    public var isShutDown: Bool {
        if case .shutDown = state { return true }
        return false
    }

    /// Requests written and not yet answered (abandoned ones included) plus queued ones.
    public var pendingCount: Int {
        inFlight.count + queued.count
    }

    // MARK: Events from the owner

    /// Opens the first connection.
    public mutating func start(now: Duration) -> [Action] {
        guard case .idle = state else { return [] }
        var actions: [Action] = []
        beginConnecting(now: now, into: &actions)
        return finish(actions)
    }

    /// Takes a request whose caller waits until `deadline`. The ID names it in the `succeed` or
    /// `fail` action that completes it, which may be among the actions returned here (a request
    /// refused at once): the shell files its caller under the ID before performing them.
    ///
    /// The deadline is the caller's, not a per-command setting, so the commands of one cache
    /// miss (look-up, lease, wait) share one Redis budget.
    public mutating func submit(
        _ request: RedisRequest, deadline: Duration, now: Duration
    ) -> (id: RedisRequestID, actions: [Action]) {
        let id = RedisRequestID(nextID)
        nextID += 1
        if let refusal = refusal(at: now) { return (id, [.fail(id, refusal)]) }
        guard deadline > now else { return (id, [.fail(id, .timedOut)]) }
        guard pendingCount < configuration.maxPendingCommands else { return (id, [.fail(id, .tooManyPending)]) }
        var actions: [Action] = []
        let command = PendingCommand(id: id, request: request, deadline: deadline, writtenAt: now)
        if case .ready = state {
            var bytes: [UInt8] = []
            request.encode(into: &bytes)
            inFlight.append(command)
            actions.append(.write(bytes))
        } else {
            queued.append(command)
        }
        return (id, finish(actions))
    }

    /// `submit(_:deadline:now:)` for a caller with a timeout of its own rather than a deadline.
    public mutating func submit(
        _ request: RedisRequest, timeout: Duration, now: Duration
    ) -> (id: RedisRequestID, actions: [Action]) {
        submit(request, deadline: now + timeout, now: now)
    }

    /// The caller of `id` stopped waiting (its task was cancelled) and the shell answered it
    /// itself: no `succeed` or `fail` follows for it. A written request keeps its place, its
    /// reply read and thrown away like a timed-out one's; a queued one is never written.
    public mutating func cancel(_ id: RedisRequestID, now: Duration) -> [Action] {
        if !inFlight.abandon(id) { _ = queued.abandon(id) }
        var actions: [Action] = []
        closeIfDrained(into: &actions)
        return finish(actions)
    }

    /// Why a request submitted now fails at once, if it does.
    private func refusal(at now: Duration) -> RedisClientError? {
        switch state {
        case .connecting, .handshaking, .ready: nil
        case .idle: RedisClientError.notConnected.detailed("The Redis connection was not started.")
        case .waitingToReconnect(let at):
            RedisClientError.notConnected.detailed("Not connected to Redis; the next attempt is in \(at - now).")
        case .refused(let error): error
        case .draining, .shutDown: .shutdown
        }
    }

    /// Stops reconnecting and accepting requests. Requests already written keep waiting for
    /// their replies (or deadlines); the connection closes when none is left.
    public mutating func shutdown(now: Duration) -> [Action] {
        var actions: [Action] = []
        switch state {
        case .connecting, .handshaking:
            actions.append(.close)
            failAll(with: .shutdown, into: &actions)
            state = .shutDown
        case .ready:
            state = .draining
            closeIfDrained(into: &actions)
        case .idle, .waitingToReconnect, .refused:
            state = .shutDown
        case .draining, .shutDown:
            break
        }
        return finish(actions)
    }

    // MARK: Helpers shared by the event handlers

    mutating func beginConnecting(now: Duration, into actions: inout [Action]) {
        state = .connecting(deadline: now + configuration.connectTimeout)
        actions.append(.connect(host: url.host, port: url.port))
    }

    /// In `draining`, closes once no caller waits for a reply any more.
    mutating func closeIfDrained(into actions: inout [Action]) {
        guard case .draining = state, !inFlight.hasLiveCommands else { return }
        _ = inFlight.removeAll()
        actions.append(.close)
        state = .shutDown
    }

    /// Fails every waiting caller, written or queued, oldest first.
    mutating func failAll(with error: RedisClientError, into actions: inout [Action]) {
        for id in inFlight.removeAll() + queued.removeAll() {
            actions.append(.fail(id, error))
        }
    }
}

extension RedisCommandConnectionStateMachine: RedisConnectionLogic {}
