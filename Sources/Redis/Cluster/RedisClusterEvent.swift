/// What the client learns of a Redis Cluster, for metrics and logs.
package enum RedisClusterEvent: Sendable, Equatable {
    /// A node redirected a request (`MOVED`, `ASK`) or asked for it later (`TRYAGAIN`,
    /// `CLUSTERDOWN`).
    case redirected(RedisRedirect)
    /// The map was read; `change` is nil when it is the one known already.
    case refreshed(change: RedisTopologyChange?)
    /// No known node answered `CLUSTER SLOTS`.
    case refreshFailed
    /// The seed is a single Redis, not a cluster: everything goes to it.
    case single
}
