import RESP

/// The logic of the process's one subscriber connection, without sockets or clocks.
///
/// The same pattern as `RedisCommandConnectionStateMachine`: events in, actions out (performed
/// by `RedisSubscriberConnection`), time passed with each event, one timer, injected jitter.
/// After every connect it logs in (`AUTH`, pipelined with `SSUBSCRIBE`), subscribes to the shard
/// channels `channels`, and reports `subscribed` once all are confirmed, telling whether this is a
/// resubscription, because messages published while disconnected are lost (pub/sub delivers at
/// most once) and the owner must drop what they might have invalidated. While subscribed it
/// sends `PING` every `pingInterval`; RESP2 answers it in subscribed mode with `["pong", ""]`; no
/// answer within `pingTimeout` means the connection is dead, and it is closed and reopened with
/// full-jitter backoff. Connected and disconnected transitions are actions, so the owner can
/// count reconnects and cap L1 freshness while messages may be missed.
///
/// Shard channels (Redis 7) rather than plain ones: on a Redis Cluster a shard channel lives on
/// the master of its hash slot, so `SPUBLISH` counts every subscriber truthfully when all of
/// them subscribe there. A node that does not own the slot answers `MOVED`: the next attempt goes
/// at once to the node named (``node``); when the slot leaves the node later (a reshard, a
/// failover), the server unsubscribes the connection, which then ends like a lost one. A single
/// Redis serves shard channels as plain ones.
package struct RedisSubscriberStateMachine: Sendable {
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

    /// What the shell does, in the order given.
    package enum Action: Sendable, Equatable {
        /// Open a TCP connection (resolving the host), then report `connected(now:)` or
        /// `connectFailed(_:now:)`.
        case connect(host: String, port: Int)
        /// Write these bytes after everything written before.
        case write([UInt8])
        /// Close the socket (if any) and deliver no further events from it.
        case close
        /// Call `timerFired(now:)` at this instant, replacing any timer armed before.
        case armTimer(at: Duration)
        /// Disarm the timer.
        case cancelTimer
        /// Every channel is subscribed: from now on no message is missed. The owner drops its
        /// whole L1, since invalidations published while it was not subscribed are lost
        /// (`isResubscription` is false for the first subscription of the process). Before the
        /// first one, and from `disconnected` to the next, messages may be missed.
        case subscribed(isResubscription: Bool)
        /// A message published on one of the channels.
        case message(channel: String, payload: [UInt8])
        /// The subscription ended (messages may be missed from now on until `subscribed`);
        /// the next attempt is at `reconnectAt`, or never (`nil`).
        case disconnected(RedisClientError, reconnectAt: Duration?)
        /// An attempt failed before every channel was subscribed; the next is at
        /// `reconnectAt`, or never (`nil`: credentials refused, or shut down).
        case connectAttemptFailed(RedisClientError, reconnectAt: Duration?)
        /// A cluster node said the channels' slot is elsewhere: the client's map should learn it.
        case redirected(RedisRedirect)
    }

    let url: RedisURL
    /// The channels subscribed on every connection.
    let channels: [String]
    let configuration: RedisSubscriberConfiguration
    let handshake: RedisHandshake
    var state = State.idle
    var reconnects: ReconnectSchedule
    /// Whether a subscription ever completed: the next one is a resubscription.
    var hasSubscribed = false
    var reader: RedisReplyReader
    var timer = TimerSchedule()
    /// Where the next attempt connects, when not the URL's node: the channels' master as the
    /// owner last learnt it (set before each event that may connect), or a `MOVED`'s node.
    package var node: RedisNodeAddress?

    /// `channels` must not be empty. `random` draws the reconnect jitter.
    package init(
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
    package var isSubscribed: Bool {
        if case .subscribed = state { return true }
        return false
    }

    /// Whether it was shut down: no socket is open and none will be.
    package var isShutDown: Bool {
        if case .shutDown = state { return true }
        return false
    }

    // MARK: Events from the owner

    /// Opens the first connection.
    package mutating func start(now: Duration) -> [Action] {
        guard case .idle = state else { return [] }
        var actions: [Action] = []
        beginConnecting(now: now, into: &actions)
        return finish(actions)
    }

    /// Closes the connection for good.
    package mutating func shutdown(now: Duration) -> [Action] {
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

    // MARK: Events from the socket

    /// The TCP connection opened: log in and subscribe, in one write.
    package mutating func connected(now: Duration) -> [Action] {
        guard case .connecting(let deadline) = state else { return [] }
        reader.reset()
        var bytes = handshake.bytes
        RESPCommand(arguments: ["SSUBSCRIBE"] + channels.map { .string($0) }).encode(into: &bytes)
        state = .subscribing(deadline: deadline, handshake: handshake.steps[...], unconfirmed: Set(channels))
        return finish([.write(bytes)])
    }

    package mutating func connectFailed(_ detail: String, now: Duration) -> [Action] {
        guard case .connecting = state else { return [] }
        var actions: [Action] = []
        connectionEnded(.couldNotConnect(to: target, detail), now: now, into: &actions)
        return finish(actions)
    }

    /// Bytes read from the socket: handshake replies, subscription confirmations, messages and
    /// `PONG`s.
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

    package mutating func peerClosed(now: Duration) -> [Action] {
        socketLost(RedisClientError.connectionLost.detailed("Redis closed the subscriber connection."), now: now)
    }

    package mutating func writeFailed(_ detail: String, now: Duration) -> [Action] {
        socketLost(RedisClientError.connectionLost.detailed("Writing to Redis failed: \(detail)"), now: now)
    }

    /// The timer armed by an `armTimer` action fired: a connection attempt runs out, a `PING`
    /// is due or overdue, or the next attempt begins.
    package mutating func timerFired(now: Duration) -> [Action] {
        timer.fired()
        var actions: [Action] = []
        switch state {
        case .connecting(let deadline), .subscribing(let deadline, _, _):
            if now >= deadline {
                connectionEnded(RedisClientError.connectTimeout.detailed(
                    "Subscribing at \(target.host):\(target.port) took more than \(configuration.connectTimeout)."),
                    now: now, into: &actions)
            }
        case .subscribed(.pingDue(let at)):
            if now >= at {
                var bytes: [UInt8] = []
                RESPCommand("PING").encode(into: &bytes)
                actions.append(.write(bytes))
                state = .subscribed(.awaitingPong(deadline: now + configuration.pingTimeout))
            }
        case .subscribed(.awaitingPong(let deadline)):
            if now >= deadline {
                connectionEnded(RedisClientError.unresponsive.detailed(
                    "Redis did not answer the subscriber's PING within \(configuration.pingTimeout); reconnecting."),
                    now: now, into: &actions)
            }
        case .waitingToReconnect(let at):
            if now >= at { beginConnecting(now: now, into: &actions) }
        case .idle, .refused, .shutDown:
            break
        }
        return finish(actions)
    }

    // MARK: Steps the events share

    private var hasOpenSocket: Bool {
        switch state {
        case .subscribing, .subscribed: true
        default: false
        }
    }

    private mutating func beginConnecting(now: Duration, into actions: inout [Action]) {
        state = .connecting(deadline: now + configuration.connectTimeout)
        actions.append(.connect(host: target.host, port: target.port))
    }

    /// The URL, or the node the next attempt goes to instead.
    private var target: RedisURL {
        guard let node else { return url }
        var target = url
        target.host = node.host ?? url.host
        target.port = node.port
        return target
    }

    /// One reply read off the open socket.
    private mutating func handle(_ reply: RESPValue, now: Duration, into actions: inout [Action]) {
        if case .subscribing(let deadline, var handshakeLeft, let unconfirmed) = state, let step = handshakeLeft.first {
            handshakeLeft.removeFirst()
            if let failure = RedisHandshake.failure(of: step, reply: reply) {
                connectionEnded(failure, now: now, into: &actions)
            } else {
                state = .subscribing(deadline: deadline, handshake: handshakeLeft, unconfirmed: unconfirmed)
            }
            return
        }
        if let message = reply.errorMessage, case .moved(_, let owner)? = RedisRedirect(errorMessage: message) {
            // Not this node's slot: straight to the one named, no backoff (it is no failure).
            let owner = RedisNodeAddress(host: owner.host ?? target.host, port: owner.port)
            node = owner
            actions += [.close, .redirected(.moved(slot: RedisHashSlot.of(channels[0]), to: owner))]
            reader.reset()
            beginConnecting(now: now, into: &actions)
            return
        }
        if let message = reply.errorMessage {
            // NOAUTH here means the server wants a password REDIS_URL does not give.
            let error = reply.errorCode == "NOAUTH"
                ? RedisClientError.authenticationFailed.detailed("Redis requires a password (REDIS_URL has none): \(message)")
                : RedisClientError.protocolError.detailed("Redis answered the subscriber with an error: \(message)")
            connectionEnded(error, now: now, into: &actions)
            return
        }
        guard let push = PubSubPush(reply) else { return }
        switch (push, state) {
        case (.message(let channel, let payload), _):
            actions.append(.message(channel: channel, payload: payload))
        case (.subscribeConfirmed(let channel), .subscribing(let deadline, let handshakeLeft, var unconfirmed)):
            unconfirmed.remove(channel)
            guard unconfirmed.isEmpty else {
                state = .subscribing(deadline: deadline, handshake: handshakeLeft, unconfirmed: unconfirmed)
                return
            }
            state = .subscribed(.pingDue(at: now + configuration.pingInterval))
            reconnects.succeeded()
            actions.append(.subscribed(isResubscription: hasSubscribed))
            hasSubscribed = true
        case (.pong, .subscribed(.awaitingPong)):
            state = .subscribed(.pingDue(at: now + configuration.pingInterval))
        case (.unsubscribedByServer(let channel), _):
            connectionEnded(RedisClientError.connectionLost.detailed(
                "Redis unsubscribed \(channel): its slot moved to another node."), now: now, into: &actions)
        default:
            // A confirmation or PONG nothing waits for: harmless, and ignored.
            break
        }
    }

    /// The open socket was closed by the peer or refused a write.
    private mutating func socketLost(_ error: RedisClientError, now: Duration) -> [Action] {
        guard hasOpenSocket else { return [] }
        var actions: [Action] = []
        connectionEnded(error, now: now, into: &actions)
        return finish(actions)
    }

    /// Closes the connection for `error` and schedules the next attempt, unless the error is
    /// permanent.
    private mutating func connectionEnded(_ error: RedisClientError, now: Duration, into actions: inout [Action]) {
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

    /// Appends the change of the one timer the new state needs: every event ends here.
    private mutating func finish(_ actions: [Action]) -> [Action] {
        var actions = actions
        let wanted: Duration? = switch state {
        case .connecting(let deadline), .subscribing(let deadline, _, _): deadline
        case .subscribed(.pingDue(let at)): at
        case .subscribed(.awaitingPong(let deadline)): deadline
        case .waitingToReconnect(let at): at
        case .idle, .refused, .shutDown: nil
        }
        switch timer.change(to: wanted) {
        case .arm(let instant): actions.append(.armTimer(at: instant))
        case .cancel: actions.append(.cancelTimer)
        case nil: break
        }
        return actions
    }
}
