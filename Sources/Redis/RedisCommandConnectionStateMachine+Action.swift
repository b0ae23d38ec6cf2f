import RESP

extension RedisCommandConnectionStateMachine {
    /// What the shell does, in the order given.
    public enum Action: Sendable, Equatable {
        /// Open a TCP connection (resolving the host), then report `connected(now:)` or
        /// `connectFailed(_:now:)`.
        case connect(host: String, port: Int)
        /// Write these bytes after everything written before; report `writeFailed(_:now:)` if
        /// the socket refuses them.
        case write([UInt8])
        /// Close the socket (if any) and deliver no further events from it.
        case close
        /// Call `timerFired(now:)` at this instant, replacing any timer armed before: the
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
}
