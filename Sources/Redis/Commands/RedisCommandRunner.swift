import RESP

/// Anything that runs a Redis command by a deadline: the port the shared cache (module `Fleet`) runs its commands through,
/// so its rules are tested with fakes; `RedisClient` in production.
package protocol RedisCommandRunner: Sendable {
    /// The reply, error replies included; throws when none came (timeout, connection lost).
    func run(_ request: RedisRequest, deadline: Duration) async throws(RedisClientError) -> RESPValue

    /// `run` without a task, for a caller on an event loop: `completion` gets what `run` would
    /// return, on the caller's thread, perhaps before this returns. Returns what cancels it
    /// (on that thread: `completion` then gets `.cancelled` at once, as a cancelled `run`
    /// would), or `nil` when this runner cannot send from here (`completion` then never runs):
    /// the caller uses `run`.
    func send(
        _ request: RedisRequest, deadline: Duration, completion: @escaping @Sendable (Result<RESPValue, RedisClientError>) -> Void
    ) -> (() -> Void)?
}

extension RedisCommandRunner {
    package func send(
        _ request: RedisRequest, deadline: Duration, completion: @escaping @Sendable (Result<RESPValue, RedisClientError>) -> Void
    ) -> (() -> Void)? {
        nil
    }
}
