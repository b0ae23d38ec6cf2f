import Testing
@testable import ProductDetails

/// The local cache's memory of invalidations, which refuses a store whose load began before.
struct InvalidationLogTests {
    /// Tokens taken after the newest key's invalidation are let through without a look-up per
    /// key; older ones are still judged key by key, and an invalidation of everything still counts.
    @Test func tokensAroundTheNewestInvalidationAreJudgedAlike() {
        var log = InvalidationLog<String>(capacity: 10)
        let first = log.token()
        log.invalidate("a")
        let second = log.token()
        log.invalidate(["b", "c"])
        let third = log.token()
        #expect(!log.allowsStore(for: ["a"], token: first))
        #expect(log.allowsStore(for: ["a"], token: second))
        #expect(!log.allowsStore(for: ["a", "b"], token: second))
        #expect(log.allowsStore(for: ["a", "b", "c", "d"], token: third))
        log.invalidateAll()
        #expect(!log.allowsStore(for: "d", token: third))
        #expect(log.allowsStore(for: ["a", "d"], token: log.token()))
    }
}
