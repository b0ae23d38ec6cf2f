extension RedisCommandConnectionStateMachine {
    /// The TCP connection opened: the handshake starts (or, with nothing to send, commands flow).
    public mutating func connected(now: Duration) -> [Action] {
        guard case .connecting(let deadline) = state else { return [] }
        var actions: [Action] = []
        reader.reset()
        if handshake.steps.isEmpty {
            becomeReady(now: now, into: &actions)
        } else {
            state = .handshaking(deadline: deadline, remaining: handshake.steps[...])
            actions.append(.write(handshake.bytes))
        }
        return finish(actions)
    }

    /// The TCP connection could not be opened (refused, unreachable, name not resolved).
    public mutating func connectFailed(_ detail: String, now: Duration) -> [Action] {
        attemptFailed(detail, now: now)
    }

    /// The server closed the connection (or reset it).
    public mutating func peerClosed(now: Duration) -> [Action] {
        socketLost(RedisClientError.connectionLost.detailed("Redis closed the connection."), now: now)
    }

    /// The socket refused bytes handed to it.
    public mutating func writeFailed(_ detail: String, now: Duration) -> [Action] {
        socketLost(RedisClientError.connectionLost.detailed("Writing to Redis failed: \(detail)"), now: now)
    }

    var isConnecting: Bool {
        if case .connecting = state { return true }
        return false
    }

    var hasOpenSocket: Bool {
        switch state {
        case .handshaking, .ready, .draining: true
        default: false
        }
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
}
