import RESP

extension RedisSubscriberStateMachine {
    /// Bytes read from the socket: handshake replies, subscription confirmations, messages and
    /// `PONG`s.
    public mutating func received(_ bytes: some Sequence<UInt8>, now: Duration) -> [Action] {
        readReplies(bytes, now: now)
    }

    mutating func handle(_ reply: RESPValue, now: Duration, into actions: inout [Action]) {
        if case .subscribing(let deadline, var handshakeLeft, let unconfirmed) = state, let step = handshakeLeft.first {
            handshakeLeft.removeFirst()
            if let failure = RedisHandshake.failure(of: step, reply: reply) {
                connectionEnded(failure, now: now, into: &actions)
            } else {
                state = .subscribing(deadline: deadline, handshake: handshakeLeft, unconfirmed: unconfirmed)
            }
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
        default:
            // A confirmation or PONG nothing waits for: harmless, and ignored.
            break
        }
    }
}
