/// Where the client reports what metrics and logs need: every command's latency and outcome,
/// and every connection's changes. Called on the loop thread that owns the connection, inline:
/// each must be quick and must not block (count, or hand a line to the log).
///
/// Closures rather than a protocol: there is one implementation in production (the fleet's
/// metrics) and one in the tests, and a subscription reports its events by closure already.
package struct RedisClientObserver: Sendable {
    /// One `run` call ended, `latency` after it reached its connection (on the client's time
    /// line). A call whose task was already cancelled when it reached its connection is
    /// reported `cancelled` with no latency: it never became a command, but its caller asked.
    package var commandFinished: @Sendable (_ latency: Duration, _ outcome: RedisCommandOutcome) -> Void
    /// A connection connected, disconnected, or failed an attempt.
    package var connectionChanged: @Sendable (RedisConnectionChange) -> Void
    /// A redirect, or what a topology refresh found (``RedisClient``).
    package var cluster: @Sendable (RedisClusterEvent) -> Void
    /// A command connection sent what its loop's jobs had submitted in one turn, `requests`
    /// requests in one system call: requests over writes is the pipelining depth.
    package var wrote: @Sendable (_ requests: Int) -> Void
    /// A loop polled without blocking for a lone command's reply (``BusyPollPolicy``), and the
    /// reply came within the budget (`caught`) or after it.
    package var busyPolled: @Sendable (_ caught: Bool) -> Void

    package init(
        commandFinished: @escaping @Sendable (_ latency: Duration, _ outcome: RedisCommandOutcome) -> Void = { _, _ in },
        connectionChanged: @escaping @Sendable (RedisConnectionChange) -> Void = { _ in },
        cluster: @escaping @Sendable (RedisClusterEvent) -> Void = { _ in },
        wrote: @escaping @Sendable (_ requests: Int) -> Void = { _ in },
        busyPolled: @escaping @Sendable (_ caught: Bool) -> Void = { _ in }
    ) {
        self.commandFinished = commandFinished
        self.connectionChanged = connectionChanged
        self.cluster = cluster
        self.wrote = wrote
        self.busyPolled = busyPolled
    }
}

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

/// Which connection a `RedisConnectionChange` is about.
package enum RedisConnectionRole: Sendable, Hashable {
    /// The pipelined command connection of the loop whose `EventLoop.index` this is.
    case command(loopIndex: Int)
    /// The process's subscriber connection.
    case subscriber
}

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
