extension RedisCommandConnectionStateMachine {
    /// The timer armed by an `armTimer` action fired. Fails the requests whose deadline passed,
    /// gives up a connection attempt or a silent server, or starts the next attempt.
    public mutating func timerFired(now: Duration) -> [Action] {
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

    private static func failExpired(in queue: inout PendingQueue, now: Duration, into actions: inout [Action]) {
        for id in queue.abandonExpired(now: now) {
            actions.append(.fail(id, .timedOut))
        }
    }

    /// The earliest instant something must happen in the current state, if any.
    func wantedTimer() -> Duration? {
        switch state {
        case .connecting(let deadline), .handshaking(let deadline, _):
            return [deadline, queued.earliestLiveDeadline].compactMap { $0 }.min()
        case .ready, .draining:
            let silentLimit = inFlight.first.map { $0.writtenAt + configuration.unansweredReplyLimit }
            return [inFlight.earliestLiveDeadline, silentLimit].compactMap { $0 }.min()
        case .waitingToReconnect(let at):
            return at
        case .idle, .refused, .shutDown:
            return nil
        }
    }
}
