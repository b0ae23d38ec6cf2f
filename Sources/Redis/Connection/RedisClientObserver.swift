
/// Where the client reports what metrics and logs need: every command's latency and outcome,
/// and every connection's changes. Called on the loop thread that owns the connection, inline:
/// an implementation must be quick and must not block (count, or hand a line to the log).
package protocol RedisClientObserver: Sendable {
    /// One `run` call ended, `latency` after it reached its connection (on the client's time
    /// line). A call whose task was already cancelled when it reached its connection is
    /// reported `cancelled` with no latency: it never became a command, but its caller asked.
    func commandFinished(latency: Duration, outcome: RedisCommandOutcome)
    /// A connection connected, disconnected, or failed an attempt.
    func connectionChanged(_ change: RedisConnectionChange)
}

extension RedisClientObserver {
    package func commandFinished(latency: Duration, outcome: RedisCommandOutcome) {}
    package func connectionChanged(_ change: RedisConnectionChange) {}
}
