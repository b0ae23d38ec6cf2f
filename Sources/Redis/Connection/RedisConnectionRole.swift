/// Which connection a `RedisConnectionChange` is about.
package enum RedisConnectionRole: Sendable, Hashable {
    /// The pipelined command connection of the loop whose `EventLoop.index` this is.
    case command(loopIndex: Int)
    /// The process's subscriber connection.
    case subscriber
}
