import EventLoop
import Timekeeping

/// The pools of one loop, one per origin and pool name. Loop-confined.
final class LoopPools {
    private struct Key: Hashable {
        let origin: Origin
        let name: String
    }

    private var pools: [Key: ConnectionPool] = [:]

    func pool(
        named name: String, to origin: Origin, loop: EventLoop, configuration: HTTPClientConfiguration, statistics: ClientStatistics,
        time: any TimeSource
    ) -> ConnectionPool {
        let key = Key(origin: origin, name: name)
        if let pool = pools[key] { return pool }
        let pool = ConnectionPool(loop: loop, origin: origin, name: name, configuration: configuration, statistics: statistics, time: time)
        pools[key] = pool
        return pool
    }

    /// Fails the waiting requests of every pool named `name`, whatever its origin.
    func dropWaiting(pool name: String) {
        for (key, pool) in pools where key.name == name { pool.dropWaiting() }
    }

    func shutdown() {
        for pool in pools.values { pool.shutdown() }
    }
}
