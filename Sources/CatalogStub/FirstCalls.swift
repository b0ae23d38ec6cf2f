import Locking
import Synchronization

/// Which requests the slow-first-call fault (`FaultPlan.slowFirstEvery`) delays: the first one on
/// a route for each product it picks. Later calls for the product answer without the delay, so a
/// retry or a hedged second attempt sent while the first still waits is fast, as a cold upstream
/// cache would behave.
///
/// A product is picked when its ordinal is a multiple of N: `n` for a canonical id `p<n>` (the
/// catalog's ids, and ids past its end), otherwise the 64-bit FNV-1a hash of the id's UTF-8
/// bytes, read as an unsigned integer. Both are the same on every run and machine, so a client
/// can tell in advance which of its ids will be slow.
///
/// The memory is bounded: the latest `capacity` (route, product) pairs picked, each kept as the
/// route and an 8-byte digest of the id whatever its length; past that the oldest pair is
/// forgotten and its next call is slow again. Products the fault does not pick are never stored.
final class FirstCalls: Sendable {
    /// Enough for a benchmark's worth of distinct products while staying near a few MiB.
    static let defaultCapacity = 65_536

    private struct Key: Hashable {
        let route: StubRoute
        let digest: UInt64
    }

    private struct State {
        var seen: Set<Key> = []
        /// The pairs in the order they were picked, used as a ring once full: `next` is the
        /// oldest, the one a new pair replaces.
        var order: [Key] = []
        var next = 0
    }

    private let capacity: Int
    private let state = Locked(State())

    init(capacity: Int = FirstCalls.defaultCapacity) {
        precondition(capacity >= 1, "the memory holds at least one product")
        self.capacity = capacity
    }

    /// True when `every` picks `id` and this is its first call on `route` that the memory knows
    /// of; the call is remembered, so the next one answers false.
    func isSlowFirstCall(on route: StubRoute, id: String, every: Int) -> Bool {
        guard every >= 1 else { return false }
        let digest = Self.fnv1a(id)
        let ordinal = Catalog.number(in: id).map { UInt64($0) } ?? digest
        guard ordinal % UInt64(every) == 0 else { return false }
        let key = Key(route: route, digest: digest)
        return state.withLock { state in
            guard state.seen.insert(key).inserted else { return false }
            if state.order.count < capacity {
                state.order.append(key)
            } else {
                state.seen.remove(state.order[state.next])
                state.order[state.next] = key
                state.next = (state.next + 1) % capacity
            }
            return true
        }
    }

    /// Forgets every product, so each one's next call is a first call again.
    func forget() {
        state.withLock { $0 = State() }
    }

    /// (route, product) pairs remembered right now.
    var count: Int {
        state.withLock { $0.seen.count }
    }

    /// The ordinal of an id that is not of the `p<n>` form (see the type's documentation).
    static func fnv1a(_ id: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in id.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}
