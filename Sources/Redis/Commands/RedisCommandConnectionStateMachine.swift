import RESP

/// The logic of one pipelined Redis command connection, without sockets or clocks.
///
/// Modelled on async-http-client's `HTTP1ConnectionStateMachine`: every event is a `mutating`
/// method that returns the actions the I/O shell (`RedisCommandConnection`) performs, in order.
/// Time comes in with each event (`now`, an offset from any fixed origin) and goes out as one
/// timer to arm; reconnect jitter comes from the generator given at `init`. So every rule below
/// is tested by stepping plain values.
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
package struct RedisCommandConnectionStateMachine: Sendable {
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

    /// What the shell does, in the order given.
    package enum Action: Sendable, Equatable {
        /// Open a TCP connection (resolving the host), then report `connected(now:)` or
        /// `connectFailed(_:now:)`.
        case connect(host: String, port: Int)
        /// Write these bytes after everything written before; report `writeFailed(_:now:)` if
        /// the socket refuses them.
        case write([UInt8])
        /// Close the socket (if any) and deliver no further events from it.
        case close
        /// Call `timerFired(now:)` at this instant, replacing any timer armed before: a
        /// connection needs one timer only.
        case armTimer(at: Duration)
        /// Disarm the timer.
        case cancelTimer
        /// The request's reply: any reply, error replies (`-WRONGTYPE …`) included.
        case succeed(RedisRequestID, RESPValue)
        /// The request got no reply and never will.
        case fail(RedisRequestID, RedisClientError)
        /// The handshake succeeded: commands flow (for logs and the breaker).
        case connected
        /// A connection that was `connected` ended; the next attempt is at `reconnectAt`, or
        /// never (`nil`: shut down or permanently refused).
        case disconnected(RedisClientError, reconnectAt: Duration?)
        /// A connection attempt (TCP or handshake) failed; the next is at `reconnectAt`, or
        /// never (`nil`: the server refused our credentials or database, or shut down).
        case connectAttemptFailed(RedisClientError, reconnectAt: Duration?)
    }

    let url: RedisURL
    let configuration: RedisCommandConnectionConfiguration
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
    package init(
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
    package var isConnected: Bool {
        if case .ready = state { return true }
        return false
    }

    /// Whether it has shut down and closed: nothing is in flight and nothing will be written.
    package var isShutDown: Bool {
        if case .shutDown = state { return true }
        return false
    }

    /// Requests written and not yet answered (abandoned ones included) plus queued ones.
    package var pendingCount: Int {
        inFlight.count + queued.count
    }

    // MARK: Events from the owner

    /// Opens the first connection.
    package mutating func start(now: Duration) -> [Action] {
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
    package mutating func submit(
        _ request: RedisRequest, deadline: Duration, now: Duration
    ) -> (id: RedisRequestID, actions: [Action]) {
        var actions: [Action] = []
        let id = submit(request, deadline: deadline, now: now, into: &actions)
        return (id, actions)
    }

    /// ``submit(_:deadline:now:)`` appending its actions to `actions`: the shell hands in a
    /// buffer it keeps, so sending a command allocates no array of actions.
    package mutating func submit(
        _ request: RedisRequest, deadline: Duration, now: Duration, into actions: inout [Action]
    ) -> RedisRequestID {
        let id = RedisRequestID(nextID)
        nextID += 1
        if let refusal = refusal(at: now) {
            actions.append(.fail(id, refusal))
            return id
        }
        guard deadline > now else {
            actions.append(.fail(id, .timedOut))
            return id
        }
        guard pendingCount < configuration.maxPendingCommands else {
            actions.append(.fail(id, .tooManyPending))
            return id
        }
        let command = PendingCommand(id: id, request: request, deadline: deadline, writtenAt: now)
        if case .ready = state {
            inFlight.append(command)
            actions.append(.write(request.encoded))
        } else {
            queued.append(command)
        }
        finish(into: &actions)
        return id
    }

    /// `submit(_:deadline:now:)` for a caller with a timeout of its own rather than a deadline.
    package mutating func submit(
        _ request: RedisRequest, timeout: Duration, now: Duration
    ) -> (id: RedisRequestID, actions: [Action]) {
        submit(request, deadline: now + timeout, now: now)
    }

    /// The caller of `id` stopped waiting (its task was cancelled) and the shell answered it
    /// itself: no `succeed` or `fail` follows for it. A written request keeps its place, its
    /// reply read and thrown away like a timed-out one's; a queued one is never written.
    package mutating func cancel(_ id: RedisRequestID, now: Duration) -> [Action] {
        if !inFlight.abandon(id) { _ = queued.abandon(id) }
        var actions: [Action] = []
        closeIfDrained(into: &actions)
        return finish(actions)
    }

    /// Stops reconnecting and accepting requests. Requests already written keep waiting for
    /// their replies (or deadlines); the connection closes when none is left.
    package mutating func shutdown(now: Duration) -> [Action] {
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

    // MARK: Events from the socket

    /// The TCP connection opened: the handshake starts (it always has a step: `AUTH`, or `PING`).
    package mutating func connected(now: Duration) -> [Action] {
        guard case .connecting(let deadline) = state else { return [] }
        reader.reset()
        state = .handshaking(deadline: deadline, remaining: handshake.steps[...])
        return finish([.write(handshake.bytes)])
    }

    /// The TCP connection could not be opened (refused, unreachable, name not resolved).
    package mutating func connectFailed(_ detail: String, now: Duration) -> [Action] {
        guard case .connecting = state else { return [] }
        var actions: [Action] = []
        connectionEnded(.couldNotConnect(to: url, detail), now: now, into: &actions)
        return finish(actions)
    }

    /// Bytes read from the socket: every complete reply in them is matched to its request.
    package mutating func received(_ bytes: UnsafeRawBufferPointer, now: Duration) -> [Action] {
        guard hasOpenSocket else { return [] }
        var input = RedisReplyReader.Input(bytes)
        var actions: [Action] = []
        // A reply that ends the connection closes the socket: the replies after it are dropped.
        while hasOpenSocket, let read = reader.nextReply(from: &input) {
            switch read {
            case .reply(let reply): handle(reply, now: now, into: &actions)
            case .invalid(let error): connectionEnded(error, now: now, into: &actions)
            }
        }
        if hasOpenSocket { reader.keepUnread(input) }
        return finish(actions)
    }

    /// `received` for bytes held some other way (tests).
    package mutating func received(_ bytes: some Sequence<UInt8>, now: Duration) -> [Action] {
        Array(bytes).withUnsafeBytes { received($0, now: now) }
    }

    /// The server closed the connection (or reset it).
    package mutating func peerClosed(now: Duration) -> [Action] {
        socketLost(RedisClientError.connectionLost.detailed("Redis closed the connection."), now: now)
    }

    /// The socket refused bytes handed to it.
    package mutating func writeFailed(_ detail: String, now: Duration) -> [Action] {
        socketLost(RedisClientError.connectionLost.detailed("Writing to Redis failed: \(detail)"), now: now)
    }

    /// The timer armed by an `armTimer` action fired. Fails the requests whose deadline passed,
    /// gives up a connection attempt or a silent server, or starts the next attempt.
    package mutating func timerFired(now: Duration) -> [Action] {
        timer.fired()
        var actions: [Action] = []
        switch state {
        case .connecting(let deadline), .handshaking(let deadline, _):
            Self.failExpired(in: &queued, now: now, into: &actions)
            if now >= deadline {
                connectionEnded(RedisClientError.connectTimeout.detailed(
                    "Connecting to Redis at \(url.host):\(url.port) (with its handshake) took more than \(configuration.connectTimeout)."),
                    now: now, into: &actions)
            }
        case .ready, .draining:
            Self.failExpired(in: &inFlight, now: now, into: &actions)
            if let oldest = inFlight.first, now - oldest.writtenAt >= configuration.unansweredReplyLimit {
                connectionEnded(RedisClientError.unresponsive.detailed(
                    "Redis left a command unanswered for \(now - oldest.writtenAt) (limit \(configuration.unansweredReplyLimit)); reconnecting."),
                    now: now, into: &actions)
            } else {
                closeIfDrained(into: &actions)
            }
        case .waitingToReconnect(let at):
            if now >= at { beginConnecting(now: now, into: &actions) }
        case .idle, .refused, .shutDown:
            break
        }
        return finish(actions)
    }
}

/// Names one submitted request in the actions that complete it.
///
/// Assigned by the connection in submission order, one after another, so the shell files the
/// waiting caller under it (``RequestTable``) and never has to invent unique values of its own.
package struct RedisRequestID: Sendable, Hashable, Comparable, CustomStringConvertible {
    let value: UInt64

    init(_ value: UInt64) {
        self.value = value
    }

    package static func < (lhs: RedisRequestID, rhs: RedisRequestID) -> Bool {
        lhs.value < rhs.value
    }

    package var description: String { "#\(value)" }
}
