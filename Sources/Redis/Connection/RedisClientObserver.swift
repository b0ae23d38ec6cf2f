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
