@testable import Fleet
import Testing
@testable import ProductDetails

/// The rules by which a replica judges a shared page by the products it shows.
struct SharedInvalidationLogTests {
    private func synced(_ entries: [SharedInvalidationHistory.Entry] = [], from knownFrom: UInt64 = 100, capacity: Int = 100) -> SharedInvalidationLog {
        var log = SharedInvalidationLog(capacity: capacity)
        let ticket = log.awaitHistory()
        log.apply(SharedInvalidationHistory(knownFrom: knownFrom, entries: entries), for: ticket)
        return log
    }

    @Test func aPageIsRefusedOnlyWhenAProductItShowsWasInvalidatedAfterItsStamp() {
        var log = synced()
        log.record(110, ids: ["s"])
        #expect(!log.accepts(dependencies: ["t", "s"], stamp: 105))
        #expect(log.accepts(dependencies: ["s"], stamp: 110))
        #expect(log.accepts(dependencies: ["t"], stamp: 105))
        #expect(log.latest == 110)
    }

    /// Before the log is read nothing can be judged: not even a page that shows no other
    /// product, since everything may have been invalidated meanwhile.
    @Test func beforeTheLogIsReadNoPageIsAccepted() {
        let unsynced = SharedInvalidationLog(capacity: 10)
        #expect(!unsynced.accepts(dependencies: [String](), stamp: 1_000))
        #expect(!unsynced.accepts(dependencies: ["s"], stamp: 1_000))
        #expect(synced().accepts(dependencies: [String](), stamp: 100))
    }

    /// Invalidating everything refuses every page stamped before it, with or without
    /// dependencies; pages stamped at it or later are judged as before.
    @Test func invalidatingEverythingRefusesEveryPageStampedBefore() {
        var log = synced([.init(sequence: 120, id: nil)])
        #expect(!log.accepts(dependencies: [String](), stamp: 119))
        #expect(!log.accepts(dependencies: ["s"], stamp: 110))
        #expect(log.accepts(dependencies: [String](), stamp: 120))
        #expect(log.latest == 120, "a load starting now is stamped at it")
        log.recordEverything(130)
        #expect(!log.accepts(dependencies: [String](), stamp: 125))
        #expect(log.accepts(dependencies: ["s"], stamp: 130))
    }

    @Test func aPageStampedBeforeWhatCanBeJudgedIsRefused() {
        var log = synced(from: 100)
        #expect(!log.accepts(dependencies: ["s"], stamp: 99))
        #expect(log.accepts(dependencies: ["s"], stamp: 100))
        log.recordEverything(120)
        #expect(!log.accepts(dependencies: ["s"], stamp: 119))
        #expect(log.accepts(dependencies: ["s"], stamp: 120))
    }

    @Test func theLogReadAtSubscriptionTeachesWhatWasMissed() {
        let log = synced([.init(sequence: 101, id: "s"), .init(sequence: 102, id: nil)], from: 100)
        #expect(!log.accepts(dependencies: ["s"], stamp: 100))
        #expect(!log.accepts(dependencies: ["t"], stamp: 101), "everything at 102")
        #expect(log.accepts(dependencies: ["s"], stamp: 102))
        #expect(log.latest == 102)
    }

    @Test func aLogReadForAnEarlierSubscriptionIsIgnored() {
        var log = SharedInvalidationLog(capacity: 10)
        let first = log.awaitHistory()
        _ = log.awaitHistory()
        log.apply(SharedInvalidationHistory(knownFrom: 100, entries: []), for: first)
        #expect(log.knownFrom == .max)
    }

    @Test func forgettingRaisesWhatCanBeJudged() {
        var log = synced(capacity: 2)
        log.record(101, ids: ["a"])
        log.record(102, ids: ["b"])
        log.record(103, ids: ["c"])
        #expect(log.knownFrom == 101)
        #expect(!log.accepts(dependencies: ["z"], stamp: 100))
        #expect(log.accepts(dependencies: ["z"], stamp: 101))
        #expect(!log.accepts(dependencies: ["c"], stamp: 102))
    }

    @Test func anOlderOrRepeatedEntryChangesNothing() {
        var log = synced()
        log.record(110, ids: ["s"])
        log.record(105, ids: ["s"])
        #expect(!log.accepts(dependencies: ["s"], stamp: 107))
        #expect(log.latest == 110)
    }

    /// Pages stamped at or after the newest product entry are accepted without a look-up per id;
    /// those stamped between entries are still judged product by product.
    @Test func pagesAroundTheNewestEntryAreJudgedAlike() {
        var log = synced([.init(sequence: 110, id: "s")])
        log.record(120, ids: ["t"])
        #expect(log.accepts(dependencies: ["s"], stamp: 115))
        #expect(!log.accepts(dependencies: ["s", "t"], stamp: 115))
        #expect(log.accepts(dependencies: ["s", "t"], stamp: 120))
        log.record(105, ids: ["u"])
        #expect(!log.accepts(dependencies: ["u"], stamp: 104))
        #expect(log.accepts(dependencies: ["u", "t"], stamp: 121))
    }
}
