import RESP

extension RedisSubscriberStateMachine {
    /// The timer armed by an `armTimer` action fired: a connection attempt runs out, a `PING`
    /// is due or overdue, or the next attempt begins.
    public mutating func timerFired(now: Duration) -> [Action] {
        timer.fired()
        var actions: [Action] = []
        switch state {
        case .connecting(let deadline), .subscribing(let deadline, _, _):
            if now >= deadline {
                connectionEnded(RedisClientError.connectTimeout.detailed(
                    "Subscribing at \(url.host):\(url.port) took more than \(configuration.connectTimeout)."),
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

    func wantedTimer() -> Duration? {
        switch state {
        case .connecting(let deadline), .subscribing(let deadline, _, _): deadline
        case .subscribed(.pingDue(let at)): at
        case .subscribed(.awaitingPong(let deadline)): deadline
        case .waitingToReconnect(let at): at
        case .idle, .refused, .shutDown: nil
        }
    }
}
