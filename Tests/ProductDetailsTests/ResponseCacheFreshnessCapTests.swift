import Testing
@testable import ProductDetails
import Timekeeping

/// The cap a replica puts on L1 freshness while it may miss invalidations from the fleet, and
/// pages read from the shared cache aged from their first store.
struct ResponseCacheFreshnessCapTests {
    let time = ManualTimeSource()

    func cache() -> ResponseCache<String, String> {
        ResponseCache(maxEntries: 10, maxBytes: 10_000, time: time)
    }

    /// Older than the cap, an entry is served while one load refreshes it (the client does not
    /// wait), and may still stand in for a failed load.
    @Test func whileCappedAnOlderEntryIsServedWhileOneLoadRefreshesIt() {
        let cache = cache()
        cache.store("v", for: "a", cost: 1, ttl: .seconds(60), staleIfError: .seconds(300), staleWhileRevalidate: .seconds(30), token: cache.loadToken(for: "a"))
        cache.capFreshness(to: .seconds(2))
        time.advance(by: .seconds(1))
        #expect(cache.lookup("a") == .fresh("v", remaining: .seconds(1)))
        time.advance(by: .seconds(1))
        #expect(cache.lookup("a") == .stale("v", age: .zero, revalidate: true, usableOnError: true))
        cache.capFreshness(to: nil)
        #expect(cache.lookup("a") == .fresh("v", remaining: .seconds(58)))
        #expect(cache.freshnessCap == nil)
    }

    @Test func aCapAboveTheTTLChangesNothing() {
        let cache = cache()
        cache.store("v", for: "a", cost: 1, ttl: .seconds(1), staleIfError: .seconds(10), token: cache.loadToken(for: "a"))
        cache.capFreshness(to: .seconds(5))
        #expect(cache.freshnessCap == .seconds(5))
        time.advance(by: .seconds(3))
        #expect(cache.lookup("a") == .stale("v", age: .seconds(2), revalidate: false, usableOnError: true))
    }

    @Test func whileCappedAnEntryPastItsTTLIsRevalidatedOnlyWithinItsWindow() {
        let cache = cache()
        cache.store("v", for: "a", cost: 1, ttl: .seconds(10), staleIfError: .seconds(300), staleWhileRevalidate: .seconds(5), token: cache.loadToken(for: "a"))
        cache.capFreshness(to: .seconds(2))
        time.advance(by: .seconds(12))
        #expect(cache.lookup("a") == .stale("v", age: .seconds(2), revalidate: true, usableOnError: true))
        time.advance(by: .seconds(5))
        #expect(cache.lookup("a") == .stale("v", age: .seconds(7), revalidate: false, usableOnError: true))
    }

    @Test func anEntryStoredWithAnAgeExpiresWhenItsOriginDoes() {
        let cache = cache()
        cache.store("v", for: "a", cost: 1, ttl: .seconds(60), staleWhileRevalidate: .seconds(30), age: .seconds(70), token: cache.loadToken(for: "a"))
        #expect(cache.lookup("a") == .stale("v", age: .seconds(10), revalidate: true, usableOnError: false))
        time.advance(by: .seconds(20))
        #expect(cache.lookup("a") == .miss)
    }
}
