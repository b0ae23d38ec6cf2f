import Locking

/// How many tasks ended.
final class Finished: Sendable {
    private let count = Locked(0)

    var value: Int { count.withLock { $0 } }

    func add() { count.withLock { $0 += 1 } }
}
