import RESP

extension RedisCommandConnectionStateMachine {
    /// What the shell does, in the order given.
    public enum Action: Sendable, Equatable, RedisConnectionAction {
        /// Connect, write, close, or arm or disarm the one timer (spelled `.connect(host:port:)`,
        /// `.write(_:)`, `.close`, `.armTimer(at:)`, `.cancelTimer`).
        case socket(RedisSocketAction)
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

        public var socketAction: RedisSocketAction? {
            if case .socket(let action) = self { return action }
            return nil
        }
    }
}
