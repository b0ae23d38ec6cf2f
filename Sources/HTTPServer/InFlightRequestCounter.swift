import Synchronization

/// Requests being handled across all loops: one atomic, so admitting a request costs no lock.
final class InFlightRequestCounter: Sendable {
    private let current = Atomic<Int>(0)
    private let refused = Atomic<Int>(0)

    var count: Int { current.load(ordering: .relaxed) }
    /// Requests answered `503` because the limit was reached, since start.
    var refusedCount: Int { refused.load(ordering: .relaxed) }

    /// Takes a slot unless `limit` are taken.
    func admit(limit: Int) -> Bool {
        let taken = current.wrappingAdd(1, ordering: .relaxed).newValue
        if taken > limit {
            current.wrappingSubtract(1, ordering: .relaxed)
            refused.wrappingAdd(1, ordering: .relaxed)
            return false
        }
        return true
    }

    func release() {
        current.wrappingSubtract(1, ordering: .relaxed)
    }
}
