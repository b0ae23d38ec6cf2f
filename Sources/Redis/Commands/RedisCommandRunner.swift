import RESP

/// Anything that runs a Redis command by a deadline: the port `RedisSharedCache` runs its commands through,
/// so its rules are tested with fakes; `RedisClient` in production.
package protocol RedisCommandRunner: Sendable {
    /// The reply, error replies included; throws when none came (timeout, connection lost).
    func run(_ request: RedisRequest, deadline: Duration) async throws(RedisClientError) -> RESPValue
}
