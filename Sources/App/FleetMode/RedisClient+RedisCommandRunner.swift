import Fleet
import Redis

/// The pipelined client is what the shared page store runs its commands on.
extension RedisClient: RedisCommandRunner {}
