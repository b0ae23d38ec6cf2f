import Locking

/// How many tasks ended.
package final class Finished: Sendable {
    private let count = Locked(0)

    package init() {}

    package var value: Int { count.withLock { $0 } }

    package func add() { count.withLock { $0 += 1 } }
}
