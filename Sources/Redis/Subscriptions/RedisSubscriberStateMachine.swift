import RESP

/// The logic of the process's one subscriber connection, without sockets or clocks.
///
/// The same pattern as `RedisCommandConnectionStateMachine`: events in, actions out, time
/// passed with each event, one timer, injected jitter. After every connect it logs in (`AUTH`,
/// pipelined with `SUBSCRIBE`), subscribes to `channels`, and reports `subscribed` once all are
/// confirmed, telling whether this is a resubscription, because messages published while
/// disconnected are lost (pub/sub delivers at most once) and the owner must drop what they
/// might have invalidated. While subscribed it sends `PING` every `pingInterval`; RESP2 answers
/// it in subscribed mode with `["pong", ""]`; no answer within `pingTimeout` means the
/// connection is dead, and it is closed and reopened with full-jitter backoff. Connected and
/// disconnected transitions are actions, so the owner can count reconnects and cap L1
/// freshness while messages may be missed.
public struct RedisSubscriberStateMachine: Sendable {
    enum Health: Sendable, Equatable {
        /// The next `PING` goes out at this instant.
        case pingDue(at: Duration)
        /// A `PING` is out; the connection is dead if no `PONG` comes by this instant.
        case awaitingPong(deadline: Duration)
    }

    enum State: Sendable {
        case idle
        case connecting(deadline: Duration)
        /// Handshake replies still expected, then the channels not yet confirmed.
        case subscribing(deadline: Duration, handshake: ArraySlice<RedisHandshake.Step>, unconfirmed: Set<String>)
        case subscribed(Health)
        case waitingToReconnect(at: Duration)
        case refused(RedisClientError)
        case shutDown
    }

    public let url: RedisURL
    /// The channels subscribed on every connection.
    public let channels: [String]
    public let configuration: RedisSubscriberConfiguration
    let handshake: RedisHandshake
    var state = State.idle
    var reconnects: ReconnectSchedule
    /// Whether a subscription ever completed: the next one is a resubscription.
    var hasSubscribed = false
    var reader: RedisReplyReader
    var timer = TimerSchedule()

    /// `channels` must not be empty. `random` draws the reconnect jitter.
    public init(
        url: RedisURL,
        channels: [String],
        configuration: RedisSubscriberConfiguration = RedisSubscriberConfiguration(),
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) {
        precondition(!channels.isEmpty, "a subscriber needs at least one channel")
        self.url = url
        self.channels = channels
        self.configuration = configuration
        // Channels do not belong to a database: no SELECT.
        self.handshake = RedisHandshake(url: url, selectsDatabase: false)
        self.reconnects = ReconnectSchedule(backoff: configuration.backoff, random: random)
        self.reader = RedisReplyReader(limits: configuration.replyLimits)
    }

    /// Whether every channel is subscribed now.
    public var isSubscribed: Bool {
        if case .subscribed = state { return true }
        return false
    }

    /// Whether it was shut down: no socket is open and none will be.
    public var isShutDown: Bool {
        if case .shutDown = state { return true }
        return false
    }

    /// Opens the first connection.
    public mutating func start(now: Duration) -> [Action] {
        guard case .idle = state else { return [] }
        var actions: [Action] = []
        beginConnecting(now: now, into: &actions)
        return finish(actions)
    }

    /// Closes the connection for good.
    public mutating func shutdown(now: Duration) -> [Action] {
        var actions: [Action] = []
        switch state {
        case .subscribed:
            actions += [.close, .disconnected(.shutdown, reconnectAt: nil)]
        case .connecting, .subscribing:
            actions.append(.close)
        case .idle, .waitingToReconnect, .refused, .shutDown:
            break
        }
        state = .shutDown
        return finish(actions)
    }

    /// The TCP connection opened: log in and subscribe, in one write.
    public mutating func connected(now: Duration) -> [Action] {
        guard case .connecting(let deadline) = state else { return [] }
        reader.reset()
        var bytes = handshake.bytes
        RESPCommand(arguments: ["SUBSCRIBE"] + channels.map { .string($0) }).encode(into: &bytes)
        state = .subscribing(deadline: deadline, handshake: handshake.steps[...], unconfirmed: Set(channels))
        return finish([.write(bytes)])
    }

    public mutating func connectFailed(_ detail: String, now: Duration) -> [Action] {
        attemptFailed(detail, now: now)
    }

    public mutating func peerClosed(now: Duration) -> [Action] {
        socketLost(RedisClientError.connectionLost.detailed("Redis closed the subscriber connection."), now: now)
    }

    public mutating func writeFailed(_ detail: String, now: Duration) -> [Action] {
        socketLost(RedisClientError.connectionLost.detailed("Writing to Redis failed: \(detail)"), now: now)
    }

    var isConnecting: Bool {
        if case .connecting = state { return true }
        return false
    }

    var hasOpenSocket: Bool {
        switch state {
        case .subscribing, .subscribed: true
        default: false
        }
    }

    mutating func beginConnecting(now: Duration, into actions: inout [Action]) {
        state = .connecting(deadline: now + configuration.connectTimeout)
        actions.append(.connect(host: url.host, port: url.port))
    }

    /// Closes the connection for `error` and schedules the next attempt, unless the error is
    /// permanent.
    mutating func connectionEnded(_ error: RedisClientError, now: Duration, into actions: inout [Action]) {
        let wasSubscribed = isSubscribed
        actions.append(.close)
        reader.reset()
        var reconnectAt: Duration?
        if error.isPermanent {
            state = .refused(error)
        } else {
            let at = reconnects.nextAttempt(afterFailureAt: now)
            state = .waitingToReconnect(at: at)
            reconnectAt = at
        }
        actions.append(wasSubscribed ? .disconnected(error, reconnectAt: reconnectAt) : .connectAttemptFailed(error, reconnectAt: reconnectAt))
    }
}

extension RedisSubscriberStateMachine: RedisConnectionLogic {}
