import RESP

extension RedisCommandConnectionStateMachine {
    /// Bytes read from the socket: every complete reply in them is matched to its request.
    public mutating func received(_ bytes: some Sequence<UInt8>, now: Duration) -> [Action] {
        readReplies(bytes, now: now)
    }

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
            var bytes: [UInt8] = []
            command.request.encodeReload(into: &bytes)
            inFlight.append(reload)
            actions.append(.write(bytes))
            return
        }
        actions.append(.succeed(command.id, reply))
        closeIfDrained(into: &actions)
    }
}
