import Dispatch
@testable import ProductDetails
import TestSupport
import Testing
import Timekeeping

struct ResponseCacheTests {
    let time = ManualTimeSource()
    let events = RecordingEvents()

    func cache(maxEntries: Int = 100, maxBytes: Int = 10_000, invalidationMemory: Int = 4096) -> ResponseCache<String, String> {
        ResponseCache(maxEntries: maxEntries, maxBytes: maxBytes, time: time, events: events, invalidationMemory: invalidationMemory)
    }

    func put(_ cache: ResponseCache<String, String>, _ key: String, cost: Int = 10, ttl: Duration = .seconds(60)) {
        #expect(cache.store("v-\(key)", for: key, cost: cost, ttl: ttl, token: cache.loadToken(for: key)))
    }

    @Test func freshWithinTTLThenMissAfterIt() {
        let cache = cache()
        put(cache, "a", ttl: .seconds(10))
        time.advance(by: .seconds(4))
        #expect(cache.lookup("a") == .fresh("v-a", remaining: .seconds(6)))
        time.advance(by: .seconds(6))
        #expect(cache.lookup("a") == .miss)
        #expect(cache.count == 0)
        #expect(events.all == ["eviction expired"])
    }

    @Test func staleWhileRevalidateAndStaleIfErrorWindows() {
        let cache = cache()
        let token = cache.loadToken(for: "a")
        cache.store("v", for: "a", cost: 1, ttl: .seconds(10), staleIfError: .seconds(30), staleWhileRevalidate: .seconds(5), token: token)
        time.advance(by: .seconds(12))
        #expect(cache.lookup("a") == .stale("v", age: .seconds(2), revalidate: true, usableOnError: true))
        time.advance(by: .seconds(5))
        #expect(cache.lookup("a") == .stale("v", age: .seconds(7), revalidate: false, usableOnError: true))
        time.advance(by: .seconds(23))
        #expect(cache.lookup("a") == .miss)
        #expect(cache.count == 0)
        #expect(events.count("eviction expired") == 1)
    }

    @Test func aRevalidateWindowLongerThanTheErrorWindowStillServes() {
        let cache = cache()
        cache.store("v", for: "a", cost: 1, ttl: .seconds(1), staleIfError: .zero, staleWhileRevalidate: .seconds(5), token: cache.loadToken(for: "a"))
        time.advance(by: .seconds(2))
        #expect(cache.lookup("a") == .stale("v", age: .seconds(1), revalidate: true, usableOnError: false))
    }

    @Test func leastRecentlyUsedIsEvictedFirstAndAHitTouches() {
        let cache = cache(maxEntries: 3)
        put(cache, "a")
        put(cache, "b")
        put(cache, "c")
        #expect(cache.keysByRecency == ["c", "b", "a"])
        _ = cache.lookup("a")
        #expect(cache.keysByRecency == ["a", "c", "b"])
        put(cache, "d")
        #expect(cache.keysByRecency == ["d", "a", "c"])
        #expect(cache.lookup("b") == .miss)
        #expect(events.all == ["eviction capacity"])
    }

    @Test func theEntryBoundHolds() {
        let cache = cache(maxEntries: 10)
        for index in 0..<50 { put(cache, "k\(index)") }
        #expect(cache.count == 10)
        #expect(cache.keysByRecency == (40..<50).reversed().map { "k\($0)" })
        #expect(events.count("eviction capacity") == 40)
    }

    @Test func theByteBoundEvictsUntilTheNewValueFits() {
        let cache = cache(maxBytes: 100)
        put(cache, "a", cost: 40)
        put(cache, "b", cost: 40)
        #expect(cache.totalBytes == 80)
        put(cache, "c", cost: 50)
        #expect(cache.keysByRecency == ["c", "b"])
        #expect(cache.totalBytes == 90)
        put(cache, "d", cost: 100)
        #expect(cache.keysByRecency == ["d"])
        #expect(cache.totalBytes == 100)
        #expect(events.count("eviction bytes") == 3)
    }

    @Test func replacingAKeyReplacesItsCost() {
        let cache = cache(maxBytes: 100)
        put(cache, "a", cost: 60)
        put(cache, "a", cost: 30)
        #expect(cache.count == 1)
        #expect(cache.totalBytes == 30)
    }

    @Test func aValueLargerThanTheWholeCacheIsRefusedAndEvictsNothing() {
        let cache = cache(maxBytes: 100)
        put(cache, "a", cost: 50)
        let stored = cache.store("huge", for: "big", cost: 101, ttl: .seconds(60), token: cache.loadToken(for: "big"))
        #expect(!stored)
        #expect(cache.keysByRecency == ["a"])
        #expect(events.all.isEmpty)
    }

    @Test func aStoreAfterTheKeyWasInvalidatedIsRefused() {
        let cache = cache()
        let token = cache.loadToken(for: "a")
        cache.invalidate("a")
        #expect(!cache.store("old", for: "a", cost: 1, ttl: .seconds(60), token: token))
        #expect(cache.lookup("a") == .miss)
        // A load that starts after the invalidation may store.
        #expect(cache.store("new", for: "a", cost: 1, ttl: .seconds(60), token: cache.loadToken(for: "a")))
    }

    @Test func invalidatingOneKeyLeavesOtherLoadsAlone() {
        let cache = cache()
        let tokenA = cache.loadToken(for: "a")
        let tokenB = cache.loadToken(for: "b")
        cache.invalidate("a")
        #expect(!cache.store("a", for: "a", cost: 1, ttl: .seconds(60), token: tokenA))
        #expect(cache.store("b", for: "b", cost: 1, ttl: .seconds(60), token: tokenB))
    }

    @Test func aStoreAfterInvalidateAllIsRefusedForEveryKey() {
        let cache = cache()
        let tokenA = cache.loadToken(for: "a")
        let tokenB = cache.loadToken(for: "b")
        cache.invalidateAll()
        #expect(!cache.store("a", for: "a", cost: 1, ttl: .seconds(60), token: tokenA))
        #expect(!cache.store("b", for: "b", cost: 1, ttl: .seconds(60), token: tokenB))
    }

    @Test func invalidationMemoryIsBoundedAndTooOldTokensAreRefused() {
        let cache = cache(invalidationMemory: 8)
        let ancient = cache.loadToken(for: "z")
        for index in 0..<1_000 { cache.invalidate("k\(index)") }
        #expect(cache.rememberedInvalidations == 8)
        // "z" was never invalidated, but the log no longer knows that far back: refused to be safe.
        #expect(!cache.store("z", for: "z", cost: 1, ttl: .seconds(60), token: ancient))
        let recent = cache.loadToken(for: "z")
        cache.invalidate("k5")
        #expect(cache.store("z", for: "z", cost: 1, ttl: .seconds(60), token: recent))
        cache.invalidateAll()
        #expect(cache.rememberedInvalidations == 0)
    }

    // Seed 003's failure modes.

    @Test func concurrentInsertsKeepEveryKey() async {
        let cache = cache(maxEntries: 10_000, maxBytes: 1_000_000)
        DispatchQueue.concurrentPerform(iterations: 1_000) { index in
            cache.store("v\(index)", for: "k\(index % 10)", cost: 1, ttl: .seconds(60), token: cache.loadToken(for: "k\(index % 10)"))
        }
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<1_000 {
                group.addTask {
                    cache.store("v\(index)", for: "t\(index)", cost: 1, ttl: .seconds(60), token: cache.loadToken(for: "t\(index)"))
                }
            }
        }
        for key in 0..<10 {
            guard case .fresh = cache.lookup("k\(key)") else {
                Issue.record("k\(key) lost")
                continue
            }
        }
        #expect(cache.count == 1_010)
        #expect(cache.totalBytes == 1_010)
    }

    @Test func removeAllEmptiesTheCacheOnLogout() {
        let cache = cache()
        put(cache, "a")
        put(cache, "b")
        cache.invalidateAll()
        #expect(cache.lookup("a") == .miss)
        #expect(cache.lookup("b") == .miss)
        #expect(cache.count == 0)
        #expect(cache.totalBytes == 0)
    }

    @Test func removeValueDropsOnlyThatAccount() {
        let cache = cache()
        put(cache, "a")
        put(cache, "b")
        cache.invalidate("a")
        #expect(cache.lookup("a") == .miss)
        #expect(cache.lookup("b") == .fresh("v-b", remaining: .seconds(60)))
        #expect(cache.totalBytes == 10)
    }
}

struct LRUEntriesTests {
    @Test func slotsAreReusedAndTheListStaysConsistent() {
        var entries = LRUEntries<Int, Int>()
        func entry(_ key: Int) -> CacheEntry<Int, Int> {
            CacheEntry(key: key, value: key, cost: 1, storedAt: .zero, freshFor: .zero, staleIfError: .zero, staleWhileRevalidate: .zero)
        }
        for key in 0..<5 { entries.insert(entry(key)) }
        #expect(entries.keysByRecency == [4, 3, 2, 1, 0])
        #expect(entries.remove(2)?.key == 2)
        #expect(entries.removeOldest()?.key == 0)
        _ = entries.touch(1)
        #expect(entries.keysByRecency == [1, 4, 3])
        entries.insert(entry(9))
        entries.insert(entry(8))
        #expect(entries.keysByRecency == [8, 9, 1, 4, 3])
        #expect(entries.count == 5)
        #expect(entries.totalCost == 5)
        while entries.removeOldest() != nil {}
        #expect(entries.count == 0)
        #expect(entries.keysByRecency.isEmpty)
    }
}
