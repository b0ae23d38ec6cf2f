@testable import Fleet
@testable import ProductDetails
import Testing
import Timekeeping

/// What the shared cache tells its breaker, on the hand-moved time line.
@Suite("Shared cache and its breaker")
struct SharedCacheBreakerTests {
    /// A store whose every call gets no reply before its deadline: what the breaker sees of a
    /// Redis that stopped answering, or of one given too little time.
    struct UnansweredStore: SharedPageStore {
        func peek(id: String, deadline: Duration) async throws(SharedStoreFailure) -> SharedRead? { throw .timedOut }
        func read(id: String, deadline: Duration, peeked: Bool) async throws(SharedStoreFailure) -> SharedRead { throw .timedOut }
        func claim(id: String, generation: SharedGeneration, deadline: Duration) async throws(SharedStoreFailure) -> SharedClaim? {
            throw .timedOut
        }
        func claimCurrent(id: String, deadline: Duration) async throws(SharedStoreFailure) -> SharedClaim? { throw .timedOut }
        func renew(_ claim: SharedClaim, deadline: Duration) async throws(SharedStoreFailure) -> Bool { throw .timedOut }
        func store(_ page: SharedPage, under claim: SharedClaim, keepingLease: Bool, deadline: Duration) async throws(SharedStoreFailure) -> Bool {
            throw .timedOut
        }
        func release(_ claim: SharedClaim, deadline: Duration) async throws(SharedStoreFailure) { throw .timedOut }
        func invalidate(_ scope: InvalidationScope, deadline: Duration) async throws(SharedStoreFailure) -> SharedInvalidationReceipt { throw .timedOut }
        func invalidationHistory(deadline: Duration) async throws(SharedStoreFailure) -> SharedInvalidationHistory { throw .timedOut }
    }

    static func cache(time: ManualTimeSource) -> SharedCache {
        SharedCache(
            store: UnansweredStore(), settings: SharedCacheSettings(timeout: .milliseconds(250), breakerFailures: 3), time: time)
    }

    /// The last looks of a long wait get what is left of their miss's budget; their time-outs
    /// are not Redis failures, however many misses end so.
    @Test func timeOutsOfCommandsCutShortByTheBudgetDoNotOpenIt() async {
        let time = ManualTimeSource()
        let shared = Self.cache(time: time)
        for _ in 0..<20 {
            #expect(await shared.read(id: "p1", deadline: time.now + .milliseconds(3)) == nil)
        }
        #expect(shared.breakerState == .closed)
    }

    @Test func timeOutsWithTheWholeBudgetOpenIt() async {
        let time = ManualTimeSource()
        let shared = Self.cache(time: time)
        for _ in 0..<3 {
            #expect(await shared.read(id: "p1", deadline: shared.deadline()) == nil)
        }
        #expect(shared.breakerState == .open)
    }
}
