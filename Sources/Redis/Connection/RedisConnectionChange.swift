
/// A connection's change of state, for logs and metrics.
package enum RedisConnectionChange: Sendable, Equatable {
    /// The handshake (and, for the subscriber, every `SUBSCRIBE`) succeeded.
    case connected(RedisConnectionRole)
    /// A connection that was connected ended; it reconnects unless `error.isPermanent` or it
    /// was shut down.
    case disconnected(RedisConnectionRole, RedisClientError)
    /// An attempt failed before the connection was ready; another follows after a backoff,
    /// unless `error.isPermanent` (the server refused the credentials or database).
    case connectAttemptFailed(RedisConnectionRole, RedisClientError)
}
