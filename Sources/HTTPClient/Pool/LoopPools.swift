import EventLoop
import Timekeeping

/// The pools of one loop, one per origin and pool name. Loop-confined.
final class LoopPools {
    private struct Key: Equatable {
        let origin: Origin
        let name: String
    }

    /// A few pools (one per upstream route in the service): found by comparing their keys in
    /// turn, which costs less per call than hashing the origin and the name.
    private var pools: [(key: Key, pool: ConnectionPool)] = []

    func pool(
        named name: String, to origin: Origin, loop: EventLoop, configuration: HTTPClientConfiguration, statistics: ClientStatistics,
        time: any TimeSource
    ) -> ConnectionPool {
        let key = Key(origin: origin, name: name)
        for entry in pools where entry.key == key { return entry.pool }
        let pool = ConnectionPool(loop: loop, origin: origin, name: name, configuration: configuration, statistics: statistics, time: time)
        pools.append((key, pool))
        return pool
    }

    /// Fails the waiting requests of every pool named `name`, whatever its origin.
    func dropWaiting(pool name: String) {
        for (key, pool) in pools where key.name == name { pool.dropWaiting() }
    }

    func shutdown() {
        for entry in pools { entry.pool.shutdown() }
    }
}
