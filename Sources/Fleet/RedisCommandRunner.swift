import Redis
import RESP

/// Anything that runs a Redis command by a deadline: the pipelined client in production.
public protocol RedisCommandRunner: Sendable {
    /// The reply, error replies included; throws when none came (timeout, connection lost).
    func run(_ request: RedisRequest, deadline: Duration) async throws(RedisClientError) -> RESPValue
}
