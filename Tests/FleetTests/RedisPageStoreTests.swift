@testable import Fleet
import ProductDetails
import RESP
import Locking
import PureTestSupport
import Testing
import TestSupport
import Timekeeping

/// The shared cache's scripts against a real `redis-server`: leases, stores guarded by lease and
/// generation, and invalidation by token that no eviction or restart can undo.
///
/// The server is a one-node Redis Cluster: every script here would be refused if it touched a
/// key outside the slot of the keys it declares, as a cluster of several nodes needs. The other
/// fleet tests run on a plain server, the same layout.
@Suite("Redis page store", .timeLimit(.minutes(1)))
struct RedisPageStoreTests {
    let server: RedisServer
    let redis: SerialRedisRunner
    let store: RedisPageStore
    /// Each test has its own server, and a prefix of its own as well.
    let keys = SharedCacheKeys(prefix: "pd:\(RandomPrefix.next()):")
    /// The replica's clock, which stamps and ages its pages: moved by hand.
    let wall = ManualTimeSource(now: .seconds(1_765_000_000))
    static let far = Duration.seconds(1_000_000)

    init() async throws {
        server = try await RedisServer.started(cluster: true)
        redis = try SerialRedisRunner(port: server.port)
        store = RedisPageStore(redis: redis, keys: keys, leaseDuration: .seconds(600), generationLifetime: .seconds(600), wallClock: wall)
    }

    static func page(_ text: String = "{\"id\":\"p1\"}", ttl: Duration = .seconds(60)) -> SharedPage {
        SharedPage(
            document: CachedDocument(status: 200, body: Array(text.utf8)), ttl: ttl,
            staleIfError: .seconds(300), staleWhileRevalidate: .seconds(30)
        )
    }

    func claim(_ id: String) async throws -> SharedClaim {
        let read = try await store.read(id: id, deadline: Self.far)
        guard case .claimed(let claim) = read else {
            Issue.record("expected a claim, got \(read)")
            throw RedisServerError.notInstalled
        }
        return claim
    }

    /// A plain connection subscribed to the invalidation channel (its confirmation read).
    func subscribedToInvalidations() async throws -> RawClient {
        let subscriber = try RawClient(port: server.port, readTimeoutSeconds: 10)
        var bytes: [UInt8] = []
        RESPCommand("SSUBSCRIBE", .string(keys.invalidationChannel)).encode(into: &bytes)
        try await subscriber.send(bytes)
        _ = try await subscriber.receiveSome()
        return subscriber
    }

    func raw(_ arguments: RESPArgument...) async throws -> RESPValue {
        try await redis.run(.command(RESPCommand(arguments: arguments)), deadline: Self.far)
    }

    @Test func theFirstReaderLoadsTheOthersWaitThenEveryoneReadsThePage() async throws {
        let claim = try await claim("p1")
        #expect(try await store.read(id: "p1", deadline: Self.far) == .loadingElsewhere)
        #expect(try await store.store(Self.page(), under: claim, deadline: Self.far))
        guard case .page(let page, let age, let generation) = try await store.read(id: "p1", deadline: Self.far) else {
            Issue.record("expected the stored page")
            return
        }
        #expect(page == Self.page())
        #expect(age == .zero)
        #expect(generation == claim.generation)
        // The lease went with the store.
        #expect(try await raw("EXISTS", .string(keys.lease(of: "p1"))) == .integer(0))
    }

    /// A hit runs no script: one `MGET` reads the generation, the page and the lease (on this
    /// one-node cluster, so its keys share a slot); so does a look while another replica loads.
    /// A miss runs the read script after it.
    @Test func aHitOrALookWhileAnotherLoadsIsOneCommand() async throws {
        var sent = await redis.sent.count
        let claim = try await claim("p1")
        #expect(await Array(redis.sent[sent...]) == ["MGET", "EVAL"])
        sent = await redis.sent.count
        #expect(try await store.read(id: "p1", deadline: Self.far) == .loadingElsewhere)
        #expect(await Array(redis.sent[sent...]) == ["MGET"])
        #expect(try await store.store(Self.page(), under: claim, deadline: Self.far))
        sent = await redis.sent.count
        guard case .page(let page, let age, let generation) = try await store.read(id: "p1", deadline: Self.far) else {
            Issue.record("expected the stored page")
            return
        }
        #expect(await Array(redis.sent[sent...]) == ["MGET"])
        #expect(page == Self.page())
        #expect(age == .zero)
        #expect(generation == claim.generation)
    }

    /// A request's first look, before it starts a load: a `GET` of the page alone, no lease
    /// taken, nothing created. It sees pages only: a load running elsewhere is for the read that
    /// follows to learn, and the read after a look that found nothing is the script alone.
    @Test func aPeekIsOneGETOfThePageAndTheReadAfterItIsTheScriptAlone() async throws {
        var sent = await redis.sent.count
        #expect(try await store.peek(id: "p1", deadline: Self.far) == nil)
        #expect(await Array(redis.sent[sent...]) == ["GET"])
        #expect(try await raw("EXISTS", .string(keys.lease(of: "p1")), .string(keys.generation(of: "p1"))) == .integer(0))
        sent = await redis.sent.count
        guard case .claimed(let claim) = try await store.read(id: "p1", deadline: Self.far, peeked: true) else {
            Issue.record("expected a claim")
            return
        }
        #expect(await Array(redis.sent[sent...]) == ["EVAL"])
        #expect(try await store.peek(id: "p1", deadline: Self.far) == nil)
        #expect(try await store.read(id: "p1", deadline: Self.far, peeked: true) == .loadingElsewhere)
        #expect(try await store.store(Self.page(), under: claim, deadline: Self.far))
        sent = await redis.sent.count
        guard case .page(let page, _, let generation)? = try await store.peek(id: "p1", deadline: Self.far) else {
            Issue.record("expected the stored page")
            return
        }
        #expect(await Array(redis.sent[sent...]) == ["GET"])
        #expect(page == Self.page())
        #expect(generation == claim.generation)
    }

    /// A page's three ways in: the request's first look (the `GET`), a waiter's look (the
    /// `MGET`, then the script when it learns nothing) and the read script alone.
    enum ReadWay: CaseIterable {
        case peek, look, script
    }

    func read(_ id: String, _ way: ReadWay, from reader: RedisPageStore? = nil) async throws -> SharedRead? {
        let reader = reader ?? store
        switch way {
        case .peek: return try await reader.peek(id: id, deadline: Self.far)
        case .look: return try await reader.read(id: id, deadline: Self.far, peeked: false)
        case .script: return try await reader.read(id: id, deadline: Self.far, peeked: true)
        }
    }

    /// A page's gzip variant is stored with it and read back with it, byte for byte.
    @Test func theGzipVariantIsStoredAndReadWithThePage() async throws {
        let claim = try await claim("p1")
        let member: [UInt8] = [0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 3] + Array(repeating: 0xab, count: 40)
        let document = CachedDocument(status: 200, body: Array(repeating: UInt8(ascii: "x"), count: 600)).withGzip(member)
        let stored = SharedPage(document: document, ttl: .seconds(60))
        #expect(try await store.store(stored, under: claim, deadline: Self.far))
        guard case .page(let page, _, _) = try await store.read(id: "p1", deadline: Self.far) else {
            Issue.record("expected the stored page")
            return
        }
        #expect(page == stored)
        #expect(page.document.gzip == document.gzip)
    }

    /// A refresh (`no-cache`) takes the lease over a stored page without reading it, stores the
    /// new page at the current tokens, and gets nothing while another replica holds the lease.
    @Test func aLeaseOnlyReadTakesTheLeaseOverAStoredPageAndReplacesIt() async throws {
        let first = try await claim("p1")
        #expect(try await store.store(Self.page("old"), under: first, deadline: Self.far))
        let refresh = try #require(try await store.claimCurrent(id: "p1", deadline: Self.far))
        #expect(refresh.generation == first.generation)
        #expect(try await store.claimCurrent(id: "p1", deadline: Self.far) == nil, "held by the refresh")
        #expect(try await store.store(Self.page("new"), under: refresh, deadline: Self.far))
        guard case .page(let page, _, _) = try await store.read(id: "p1", deadline: Self.far) else {
            Issue.record("expected the refreshed page")
            return
        }
        #expect(page == Self.page("new"))
    }

    /// A page answered before a late optional part: stored at once, the lease kept for the
    /// completed page, which replaces it and releases the lease.
    @Test func aStoreKeepingTheLeaseLetsTheCompletedPageFollow() async throws {
        let claim = try await claim("p1")
        let degraded = SharedPage(
            document: CachedDocument(status: 200, body: Array(#"{"partial":true}"#.utf8), missing: [.reviews]), ttl: .seconds(5),
            staleIfError: .zero, staleWhileRevalidate: .zero)
        #expect(try await store.store(degraded, under: claim, keepingLease: true, deadline: Self.far))
        let lease = keys.lease(of: "p1")
        #expect(try await raw("EXISTS", .string(lease)) == .integer(1), "the lease stays with its holder")
        guard case .page(let first, _, _) = try await store.read(id: "p1", deadline: Self.far) else {
            Issue.record("the degraded page is there to read meanwhile")
            return
        }
        #expect(first == degraded)
        #expect(try await store.store(Self.page(), under: claim, deadline: Self.far))
        #expect(try await raw("EXISTS", .string(lease)) == .integer(0))
        guard case .page(let completed, _, _) = try await store.read(id: "p1", deadline: Self.far) else {
            Issue.record("expected the completed page")
            return
        }
        #expect(completed == Self.page())
        // Under a claim whose lease is gone, a late degraded store is refused.
        #expect(try await store.store(degraded, under: claim, keepingLease: true, deadline: Self.far) == false)
    }

    /// The overtaken load's lease does not hold up the next generation's load: the next read
    /// takes the lease at once, and the overtaken holder can neither store nor renew.
    @Test func aLoadOvertakenByAnInvalidationIsNotStored() async throws {
        let claim = try await claim("p1")
        #expect(try await store.invalidate(.product("p1"), deadline: Self.far).receivers == 0)
        #expect(try await store.store(Self.page(), under: claim, deadline: Self.far) == false)
        // The product starts over under its new generation.
        let next = try await self.claim("p1")
        #expect(next.generation != claim.generation)
        #expect(try await store.renew(claim, deadline: Self.far) == false)
        #expect(try await store.claim(id: "p1", generation: claim.generation, deadline: Self.far) == nil, "not at an old generation")
        #expect(try await store.store(Self.page(), under: next, deadline: Self.far))
    }

    /// A product's invalidation deletes its page and its lease with its token, in one step: no
    /// look finds the page after it, however it looks.
    @Test func anInvalidationDeletesThePageAndTheLeaseAtOnce() async throws {
        let first = try await claim("p1")
        #expect(try await store.store(Self.page("old"), under: first, deadline: Self.far))
        let refresh = try #require(try await store.claim(id: "p1", generation: first.generation, deadline: Self.far))
        _ = try await store.invalidate(.product("p1"), deadline: Self.far)
        #expect(try await raw("EXISTS", .string(keys.page(of: "p1")), .string(keys.lease(of: "p1"))) == .integer(0))
        #expect(try await store.peek(id: "p1", deadline: Self.far) == nil)
        guard case .claimed(let next) = try await store.read(id: "p1", deadline: Self.far) else {
            Issue.record("the page stored before the invalidation came back")
            return
        }
        #expect(next.generation != first.generation)
        #expect(try await store.store(Self.page("late"), under: refresh, deadline: Self.far) == false)
    }

    /// A page of another generation than its product's (written by hand: no script leaves one)
    /// is a miss for the script, which deletes it.
    @Test func aPageOfAnotherGenerationIsAMissAndIsDeleted() async throws {
        let first = try await claim("p1")
        try await store.release(first, deadline: Self.far)
        let page = keys.page(of: "p1")
        var value = Array("AAAAAAAAAAAAAAA ".utf8)
        SharedPageCodec.encode(Self.page(), storedAt: wall.sinceEpoch, into: &value)
        #expect(try await raw("SET", .string(page), .bytes(value)) == .simpleString(Array("OK".utf8)))
        guard case .claimed(let next) = try await store.read(id: "p1", deadline: Self.far) else {
            Issue.record("the page of another generation was read")
            return
        }
        #expect(next.generation == first.generation)
        #expect(try await raw("EXISTS", .string(page)) == .integer(0))
    }

    /// Invalidating everything touches no product's keys (no script may reach every slot): it is
    /// an entry of the log, by which every replica refuses older pages (`SharedCache`'s tests).
    @Test func invalidatingEverythingOnlyLogsAndPublishesIt() async throws {
        let first = try await claim("p1")
        #expect(try await store.store(Self.page(), under: first, deadline: Self.far))
        let all = try await store.invalidate(.everything, deadline: Self.far)
        #expect(try await store.invalidationHistory(deadline: Self.far).entries == [.init(sequence: all.sequence, id: nil)])
        guard case .page(_, _, let generation) = try await store.read(id: "p1", deadline: Self.far) else {
            Issue.record("the store no longer holds the page")
            return
        }
        #expect(generation == first.generation)
    }

    /// Eviction took the token and left the page (the first look reads the page alone, so the
    /// token is the colder key): no invalidation came after that page, or it would be gone. Every
    /// look serves it, and the product takes the page's token back: its refresh may be claimed.
    @Test func aLostTokenIsTakenBackFromItsPage() async throws {
        let claim = try await claim("p1")
        #expect(try await store.store(Self.page(), under: claim, deadline: Self.far))
        let generation = keys.generation(of: "p1")
        for way in ReadWay.allCases {
            _ = try await raw("DEL", .string(generation))
            guard case .page(let page, _, let token)? = try await read("p1", way) else {
                Issue.record("the page under a lost token was not read by the \(way)")
                return
            }
            #expect(page == Self.page())
            #expect(token == claim.generation)
        }
        #expect(try await raw("GET", .string(generation)) == .bulkString(Array(claim.generation.token.utf8)))
        #expect(try await raw("DEL", .string(generation)) == .integer(1))
        let refresh = try #require(try await store.claim(id: "p1", generation: claim.generation, deadline: Self.far))
        #expect(try await raw("PTTL", .string(generation)).integer ?? 0 > 590_000)
        #expect(try await store.store(Self.page("new"), under: refresh, deadline: Self.far))
    }

    /// A token lost after an invalidation brings nothing back: the invalidation took the page.
    @Test func aTokenLostAfterAnInvalidationBringsNoOldPageBack() async throws {
        let claim = try await claim("p1")
        #expect(try await store.store(Self.page(), under: claim, deadline: Self.far))
        _ = try await store.invalidate(.product("p1"), deadline: Self.far)
        #expect(try await raw("DEL", .string(keys.generation(of: "p1"))) == .integer(1))
        #expect(try await store.peek(id: "p1", deadline: Self.far) == nil)
        guard case .claimed(let next) = try await store.read(id: "p1", deadline: Self.far) else {
            Issue.record("expected a new load")
            return
        }
        #expect(next.generation != claim.generation)
    }

    /// A refresh began, then the product was invalidated and the new token was lost too; a
    /// claim at the page's old token then takes it back. The refresh that began before the
    /// invalidation still never stores: the invalidation took its lease.
    @Test func aLoadBeganBeforeAnInvalidationNeverStoresEvenAfterTheTokenIsTakenBack() async throws {
        let first = try await claim("p1")
        #expect(try await store.store(Self.page("old"), under: first, deadline: Self.far))
        let early = try #require(try await store.claim(id: "p1", generation: first.generation, deadline: Self.far))
        _ = try await store.invalidate(.product("p1"), deadline: Self.far)
        #expect(try await raw("DEL", .string(keys.generation(of: "p1"))) == .integer(1))
        let late = try #require(try await store.claim(id: "p1", generation: first.generation, deadline: Self.far))
        #expect(try await store.store(Self.page("before"), under: early, deadline: Self.far) == false)
        #expect(try await store.renew(early, deadline: Self.far) == false)
        #expect(try await store.store(Self.page("after"), under: late, deadline: Self.far))
        guard case .page(let page, _, _)? = try await store.peek(id: "p1", deadline: Self.far) else {
            Issue.record("expected the page loaded after the invalidation")
            return
        }
        #expect(page == Self.page("after"))
    }

    @Test func onlyTheCurrentHolderMayStore() async throws {
        let first = try await claim("p1")
        // The lease lapses (its holder stalled) and another replica takes it.
        #expect(try await raw("DEL", .string(keys.lease(of: "p1"))) == .integer(1))
        let second = try await claim("p1")
        #expect(try await store.renew(first, deadline: Self.far) == false)
        #expect(try await store.store(Self.page("late"), under: first, deadline: Self.far) == false)
        #expect(try await store.renew(second, deadline: Self.far))
        #expect(try await store.store(Self.page("current"), under: second, deadline: Self.far))
        guard case .page(let page, _, _) = try await store.read(id: "p1", deadline: Self.far) else {
            Issue.record("expected the current holder's page")
            return
        }
        #expect(page.document.body.elementsEqual("current".utf8))
    }

    /// A holder that died renews nothing: its lease carries the lease duration as its expiry,
    /// and once that lapses the next read takes the lease over.
    @Test func aLapsedLeaseIsTakenOverByTheNextRead() async throws {
        let dead = try await claim("p1")
        let lease = keys.lease(of: "p1")
        let remaining = try await raw("PTTL", .string(lease)).integer ?? 0
        #expect(remaining > 590_000 && remaining <= 600_000, "the lease expires with the lease duration: \(remaining) ms")
        #expect(try await store.read(id: "p1", deadline: Self.far) == .loadingElsewhere)
        // Lapsed now, rather than after a wait a loaded host would make unreliable.
        #expect(try await raw("PEXPIRE", .string(lease), 0) == .integer(1))
        let next = try await claim("p1")
        #expect(next.generation == dead.generation && next.token != dead.token)
    }

    @Test func releasingLetsTheNextReaderLoadAtOnce() async throws {
        let first = try await claim("p1")
        try await store.release(first, deadline: Self.far)
        _ = try await claim("p1")
    }

    @Test func aStalePageCanBeClaimedOnceForItsRefresh() async throws {
        let first = try await claim("p1")
        #expect(try await store.store(Self.page(), under: first, deadline: Self.far))
        let refresh = try await store.claim(id: "p1", generation: first.generation, deadline: Self.far)
        #expect(refresh != nil)
        #expect(try await store.claim(id: "p1", generation: first.generation, deadline: Self.far) == nil)
    }

    @Test func aValueInAnotherFormatIsAMissAndIsDeleted() async throws {
        let claim = try await claim("p1")
        let key = keys.page(of: "p1")
        #expect(try await raw("SET", .string(key), .string(claim.generation.token + " PD9 something else")) == .simpleString(Array("OK".utf8)))
        #expect(try await store.read(id: "p1", deadline: Self.far) == .loadingElsewhere, "the claim's holder loads it")
        #expect(try await raw("EXISTS", .string(key)) == .integer(0))
    }

    /// With nobody loading, the reader of a value it cannot use gets the lease at once, rather
    /// than an answer that would make it wait for a load nobody runs.
    @Test func aValueInAnotherFormatWithNoLoadRunningIsDeletedAndTheLeaseTaken() async throws {
        let first = try await claim("p1")
        try await store.release(first, deadline: Self.far)
        let key = keys.page(of: "p1")
        #expect(try await raw("SET", .string(key), .string(first.generation.token + " PD9 something else")) == .simpleString(Array("OK".utf8)))
        guard case .claimed(let next) = try await store.read(id: "p1", deadline: Self.far) else {
            Issue.record("expected the lease")
            return
        }
        #expect(next.generation == first.generation)
        #expect(try await raw("EXISTS", .string(key)) == .integer(0))
    }

    @Test func theRedisExpiryKeepsThePageThroughItsStaleWindows() async throws {
        let claim = try await claim("p1")
        #expect(try await store.store(Self.page(), under: claim, deadline: Self.far))
        let key = keys.page(of: "p1")
        let remaining = try await raw("PTTL", .string(key)).integer ?? 0
        #expect(remaining > 330_000 && remaining <= 360_000)
        // 70 s later by the replica's clock: past its TTL, read back as 10 s stale, by the looks
        // and by the script alike.
        wall.advance(by: .seconds(70))
        for way in ReadWay.allCases {
            guard case .page(let page, let age, _)? = try await read("p1", way),
                  case .stale(_, let staleness, let revalidate, let usableOnError) = page.standing(age: age)
            else {
                Issue.record("expected a stale page")
                return
            }
            #expect(staleness == .seconds(10))
            #expect(revalidate && usableOnError)
        }
    }

    /// A page's age is its reader's clock against its storer's. A reader whose clock is behind
    /// reads a page stored "later" as just stored; one whose clock is far ahead reads it as at the
    /// end of its lifetime, never as gone: Redis still holds it, and a miss there would make every
    /// read a load for as long as the clocks disagree.
    /// Beyond a second out of bounds, the clamp is told (the replicas' clocks disagree), by the
    /// looks and by the script alike.
    @Test func aPagesAgeIsBoundedWhateverTheReadersClockSays() async throws {
        let claim = try await claim("p1")
        #expect(try await store.store(Self.page(), under: claim, deadline: Self.far))
        let cases: [(offset: Duration, age: Duration, skew: PageClockSkew?)] = [
            (.seconds(7), .seconds(7), nil), (.milliseconds(-500), .zero, nil), (.seconds(-10), .zero, .storedInFuture),
            (.seconds(3600), .milliseconds(359_999), .pastLifetime),
        ]
        for (offset, expected, expectedSkew) in cases {
            for way in ReadWay.allCases {
                let skews = Locked<[PageClockSkew]>([])
                let reader = RedisPageStore(
                    redis: redis, keys: keys, leaseDuration: .seconds(600), generationLifetime: .seconds(600),
                    wallClock: ManualTimeSource(now: wall.now + offset), clockSkew: { skew in skews.withLock { $0.append(skew) } })
                guard case .page(let page, let age, _)? = try await read("p1", way, from: reader) else {
                    Issue.record("expected the stored page")
                    return
                }
                #expect(age == expected, "a reader \(offset) off")
                #expect(page.standing(age: age) != .miss)
                #expect(skews.withLock { $0 } == (expectedSkew.map { [$0] } ?? []), "a reader \(offset) off")
            }
        }
    }

    @Test func anInvalidationCountsItsReceivers() async throws {
        let subscriber = try await subscribedToInvalidations()
        defer { subscriber.close() }
        #expect(try await store.invalidate(.product("p1"), deadline: Self.far).receivers == 1)
        #expect(try await store.invalidate(.everything, deadline: Self.far).receivers == 1)
    }

    @Test func invalidationsAreLoggedInOrderAndPublishedWithTheirSequence() async throws {
        let subscriber = try await subscribedToInvalidations()
        defer { subscriber.close() }
        let start = try await store.invalidationHistory(deadline: Self.far)
        #expect(start.entries.isEmpty, "a new log holds only its start")
        let one = try await store.invalidate(.product("p1"), deadline: Self.far)
        let bulk = try await store.invalidate(.products(["a", "b"]), deadline: Self.far)
        let all = try await store.invalidate(.everything, deadline: Self.far)
        #expect(start.knownFrom < one.sequence && one.sequence < bulk.sequence && bulk.sequence < all.sequence)
        let history = try await store.invalidationHistory(deadline: Self.far)
        #expect(history.knownFrom == start.knownFrom)
        #expect(history.entries == [
            .init(sequence: one.sequence, id: "p1"), .init(sequence: bulk.sequence, id: "a"),
            .init(sequence: bulk.sequence, id: "b"), .init(sequence: all.sequence, id: nil),
        ])
        var received = ""
        try await eventually(.live) {
            received += String(decoding: try await subscriber.receiveSome(), as: UTF8.self)
            return received.contains("\(all.sequence) *")
        }
        #expect(received.contains("\(one.sequence) p:p1"))
        #expect(received.contains("\(bulk.sequence) b:a b"))
    }

    @Test func theLogKeepsItsNewestEntriesAndSaysWhereItsKnowledgeStarts() async throws {
        let small = RedisPageStore(
            redis: redis, keys: keys, leaseDuration: .seconds(30), generationLifetime: .seconds(600), invalidationMemory: 3)
        let first = try await small.invalidate(.products(["a", "b"]), deadline: Self.far)
        let second = try await small.invalidate(.products(["c", "d"]), deadline: Self.far)
        let history = try await small.invalidationHistory(deadline: Self.far)
        #expect(history.knownFrom == first.sequence, "the oldest entry kept")
        #expect(history.entries.map(\.id) == ["b", "c", "d"])
        #expect(history.entries.last?.sequence == second.sequence)
    }

    @Test func aPageKeepsTheIdsItShowsAndItsStamp() async throws {
        guard case .claimed(let claim) = try await store.read(id: "p1", deadline: Self.far) else {
            Issue.record("no lease")
            return
        }
        let page = SharedPage(
            document: CachedDocument(status: 200, body: Array("{}".utf8), shownProducts: ["p1", "s1"]), ttl: .seconds(60), stamp: 77)
        #expect(try await store.store(page, under: claim, deadline: Self.far))
        guard case .page(let read, _, _) = try await store.read(id: "p1", deadline: Self.far) else {
            Issue.record("no page")
            return
        }
        #expect(read == page)
    }

    @Test func anErrorReplyIsAFailureNotAnAnswer() async throws {
        // A foreign value of another type where the generation belongs.
        #expect(try await raw("RPUSH", .string(keys.generation(of: "p1")), "x") == .integer(1))
        await #expect(throws: SharedStoreFailure.self) { try await store.read(id: "p1", deadline: Self.far) }
        // And where the page belongs: the first look's `GET` is refused too.
        #expect(try await raw("RPUSH", .string(keys.page(of: "p2")), "x") == .integer(1))
        await #expect(throws: SharedStoreFailure.self) { try await store.peek(id: "p2", deadline: Self.far) }
    }
}
