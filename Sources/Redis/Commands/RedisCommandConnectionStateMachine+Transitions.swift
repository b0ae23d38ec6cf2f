import RESP
import Timekeeping

/// The steps the events share: what a reply does, how a connection becomes ready or ends, and
/// which timer the new state wants.
extension RedisCommandConnectionStateMachine {
    var hasOpenSocket: Bool {
        switch state {
        case .handshaking, .ready, .draining: true
        default: false
        }
    }

    /// Why a request submitted now fails at once, if it does.
    func refusal(at now: Duration) -> RedisClientError? {
        switch state {
        case .connecting, .handshaking, .ready: nil
        case .idle: RedisClientError.notConnected.detailed("The Redis connection was not started.")
        case .waitingToReconnect(let at):
            // Whole milliseconds, rounded up: nanoseconds in an answer's detail are noise.
            RedisClientError.notConnected.detailed("Not connected to Redis; the next attempt is in \(((at - now).wholeNanoseconds + 999_999) / 1_000_000) ms.")
        case .refused(let error): error
        case .draining, .shutDown: .shutdown
        }
    }

    mutating func beginConnecting(now: Duration, into actions: inout [Action]) {
        state = .connecting(deadline: now + configuration.connectTimeout)
        actions.append(.connect(host: url.host, port: url.port))
    }

    /// Every handshake reply was right: queued requests are written, in one batch.
    mutating func becomeReady(now: Duration, into actions: inout [Action]) {
        state = .ready
        reconnects.succeeded()
        actions.append(.connected)
        var bytes: [UInt8] = []
        for var command in queued.takeAll() where !command.isAbandoned {
            command.writtenAt = now
            command.request.encode(into: &bytes)
            inFlight.append(command)
        }
        if !bytes.isEmpty { actions.append(.write(bytes)) }
    }

    /// One reply read off the open socket: a handshake step's, or the oldest request's.
    mutating func handle(_ reply: RESPValue, now: Duration, into actions: inout [Action]) {
        if case .handshaking(let deadline, var remaining) = state {
            let step = remaining.removeFirst()
            if let failure = RedisHandshake.failure(of: step, reply: reply) {
                connectionEnded(failure, now: now, into: &actions)
            } else if remaining.isEmpty {
                becomeReady(now: now, into: &actions)
            } else {
                state = .handshaking(deadline: deadline, remaining: remaining)
            }
            return
        }
        if inFlight.dropsLeadingReply(reply) { return }
        guard let command = inFlight.popFirst() else {
            connectionEnded(RedisClientError.protocolError.detailed("Redis sent a reply no command was waiting for."), now: now, into: &actions)
            return
        }
        // The caller timed out: the slot only kept the pipeline in step.
        guard !command.isAbandoned else { return }
        if command.request.isScript && !command.isReload && reply.errorCode == "NOSCRIPT" {
            var reload = command
            reload.isReload = true
            reload.writtenAt = now
            reload.leadingReplies = command.request.leadingReplies
            reload.leadingError = nil
            var bytes: [UInt8] = []
            command.request.encodeReload(into: &bytes)
            inFlight.append(reload)
            actions.append(.write(bytes))
            return
        }
        if let leadingError = command.leadingError, reply.errorMessage != nil {
            actions.append(.succeed(command.id, leadingError))
        } else {
            actions.append(.succeed(command.id, reply))
        }
        closeIfDrained(into: &actions)
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

    static func failExpired(in queue: inout PendingQueue, now: Duration, into actions: inout [Action]) {
        for id in queue.abandonExpired(now: now) {
            actions.append(.fail(id, .timedOut))
        }
    }

    /// The open socket was closed by the peer or refused a write.
    mutating func socketLost(_ error: RedisClientError, now: Duration) -> [Action] {
        guard hasOpenSocket else { return [] }
        var actions: [Action] = []
        connectionEnded(error, now: now, into: &actions)
        return finish(actions)
    }

    /// Closes the connection for `error`, fails every waiting caller with it, and schedules the
    /// next attempt, or none when the error is permanent or the connection was shutting down.
    mutating func connectionEnded(_ error: RedisClientError, now: Duration, into actions: inout [Action]) {
        let wasConnected: Bool
        switch state {
        case .ready, .draining: wasConnected = true
        default: wasConnected = false
        }
        let shuttingDown: Bool
        if case .draining = state { shuttingDown = true } else { shuttingDown = false }
        actions.append(.close)
        failAll(with: error, into: &actions)
        reader.reset()

        var reconnectAt: Duration?
        if shuttingDown {
            state = .shutDown
        } else if error.isPermanent {
            state = .refused(error)
        } else {
            let at = reconnects.nextAttempt(afterFailureAt: now)
            state = .waitingToReconnect(at: at)
            reconnectAt = at
        }
        actions.append(wasConnected ? .disconnected(error, reconnectAt: reconnectAt) : .connectAttemptFailed(error, reconnectAt: reconnectAt))
    }

    /// The earliest instant something must happen in the current state, if any.
    func wantedTimer() -> Duration? {
        switch state {
        case .connecting(let deadline), .handshaking(let deadline, _):
            return Self.earlier(deadline, queued.earliestLiveDeadline)
        case .ready, .draining:
            let silentLimit = inFlight.first.map { $0.writtenAt + configuration.unansweredReplyLimit }
            return Self.earlier(inFlight.earliestLiveDeadline, silentLimit)
        case .waitingToReconnect(let at):
            return at
        case .idle, .refused, .shutDown:
            return nil
        }
    }

    /// The earlier of two optional instants, without the arrays `min()` would need: this runs
    /// at every event of the connection.
    private static func earlier(_ a: Duration?, _ b: Duration?) -> Duration? {
        guard let a else { return b }
        guard let b else { return a }
        return min(a, b)
    }

    /// Appends the timer change the new state needs: every event ends here.
    mutating func finish(_ actions: [Action]) -> [Action] {
        var actions = actions
        finish(into: &actions)
        return actions
    }

    mutating func finish(into actions: inout [Action]) {
        switch timer.change(to: wantedTimer()) {
        case .arm(let instant): actions.append(.armTimer(at: instant))
        case .cancel: actions.append(.cancelTimer)
        case nil: break
        }
    }
}
