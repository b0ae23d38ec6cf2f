import Fleet
import Locking
import ProductDetails
import PureTestSupport
import RESP
import Testing
import Timekeeping
import TestSupport

/// Replicas (services in one process, each with its own Redis connection) sharing one real
/// `redis-server`: one load per product for the whole fleet, L2 hits that fill L1, loads an
/// invalidation overtook stored nowhere, a dead lease holder taken over, and Redis gone.
@Suite("Fleet of services on one Redis", .timeLimit(.minutes(1)))
struct FleetServiceTests {
    let server: RedisServer
    let catalog = CountingCatalog()
    let events = FleetEventLog()
    let keys = FleetKeys(prefix: "pd:\(RandomPrefix.next()):")

    init() async throws {
        server = try await RedisServer.started()
    }

    /// A replica. The lease is long by default: a loaded test host may delay a renewal past a
    /// short one, and a lapse there would (rightly) let a waiter load too.
    func replica(
        lease: Duration = .seconds(30), breakerFailures: Int = 5, requestDeadline: Duration = .seconds(30),
        optionalPartGrace: Duration = .seconds(30)
    ) throws -> (ProductDetailsService, SerialRedisRunner) {
        let runner = try SerialRedisRunner(port: server.port)
        let time = ClockTimeSource()
        let settings = SharedCacheSettings(timeout: .seconds(60), leaseDuration: lease, breakerFailures: breakerFailures, breakerOpenFor: .seconds(60))
        let store = RedisPageStore(redis: runner, keys: keys, leaseDuration: lease, generationLifetime: .seconds(600))
        // A deadline no loaded test host reaches: waiters must wait for the holder, not give up.
        var serviceSettings = ServiceSettings()
        serviceSettings.requestDeadline = requestDeadline
        // As long as the deadline unless a test is about it: a loaded host must not make a part late.
        serviceSettings.optionalPartGrace = optionalPartGrace
        serviceSettings.hedging = nil
        let service = ProductDetailsService(
            products: catalog, reviews: catalog, suggestions: catalog, settings: serviceSettings, time: time, events: events,
            shared: SharedCache(store: store, settings: settings, time: time, events: events)
        )
        return (service, runner)
    }

    @Test func aHerdOverThreeReplicasCostsOneCallPerRoute() async throws {
        let replicas = try (0..<3).map { _ in try replica().0 }
        catalog.hold()
        let answers = try await withThrowingTaskGroup(of: DetailAnswer.self) { group in
            for replica in replicas {
                for _ in 0..<20 {
                    group.addTask { try await replica.detail(id: "p1") }
                }
            }
            // The first loader is held upstream; the others wait for its page.
            await eventually(.live) { catalog.heldCount == 1 && events.count("lease waited") == 2 }
            catalog.release()
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == 60)
        #expect(Set(answers.map(\.document.body)).count == 1)
        for route in ["products", "reviews", "suggestions"] {
            #expect(catalog.calls(route) == 1, "\(route): \(events.all)")
        }
        #expect(events.count("lease won") == 1)
        let sharedHits = answers.filter { $0.cache.shared?.result == .hit && $0.cache.shared?.collapsed == true }
        #expect(sharedHits.count == 40)
        #expect(answers.filter { $0.cache.shared?.stored == true }.count == 20)
    }

    /// A page answered without its late reviews is shared at once while its holder keeps the
    /// lease; when the reviews come, the completed page replaces it for the whole fleet, from
    /// that one load.
    @Test func aPageCompletedLateIsSharedAtOnceAndThenReplacedByTheWholeOne() async throws {
        let (holder, _) = try replica(optionalPartGrace: .milliseconds(20))
        catalog.holdReviews()
        let first = try await holder.detail(id: "p1")
        #expect(first.document.missing == [.reviews])
        #expect(first.cache.withoutWaiting == .grace)
        #expect(first.cache.shared?.stored == true, "the degraded page is shared at once")
        let (meanwhile, _) = try replica()
        let read = try await meanwhile.detail(id: "p1")
        #expect(read.document.missing == [.reviews] && read.cache.shared?.result == .hit)

        catalog.releaseReviews()
        await eventually(.live) {
            if case .answered(let answer) = holder.lookUpDetail(id: "p1") { return answer.document.missing.isEmpty }
            return false
        }
        // A replica that has not seen the page yet reads the shared copy (each look is a new one,
        // with an empty L1): the completed page, once the holder stored it.
        await eventually(.live) {
            guard let (late, _) = try? self.replica(), let answer = try? await late.detail(id: "p1") else { return false }
            return answer.document.missing.isEmpty && answer.cache.shared?.result == .hit
        }
        #expect(catalog.calls("products") == 1, "one load for the whole fleet: \(events.all)")
        #expect(catalog.calls("reviews") == 1)
    }

    /// Waiting for another replica's load spends the request's deadline: a waiter that gives up
    /// has none left to start a load of its own (which would double the request's time).
    @Test func aWaiterThatGivesUpDoesNotLoadOnANewDeadline() async throws {
        let (holder, _) = try replica()
        let (waiter, _) = try replica(requestDeadline: .milliseconds(300))
        catalog.hold()
        let held = Task { try await holder.detail(id: "p1") }
        await eventually(.live) { catalog.heldCount == 1 }
        let gaveUp = Locked(false)
        let waiting = Task {
            defer { gaveUp.withLock { $0 = true } }
            return try await waiter.detail(id: "p1")
        }
        // Either it gives up, or (the bug) it starts its own load, which the catalog holds.
        await eventually(.live) { gaveUp.withLock { $0 } || catalog.calls("products") > 1 }
        #expect(catalog.calls("products") == 1, "the waiter went upstream too: \(events.all)")
        #expect(events.count("lease waited") == 1)
        catalog.release()
        await #expect(throws: ProductDetailsError.self) { try await waiting.value }
        #expect(try await held.value.document.status == 200)
    }

    @Test func aSharedHitFillsL1AndTheNextAnswerDoesNotAskRedis() async throws {
        let (first, _) = try replica()
        let (second, secondRedis) = try replica()
        _ = try await first.detail(id: "p1")
        let fromShared = try await second.detail(id: "p1")
        #expect(fromShared.cache.result == .miss && fromShared.cache.shared?.result == .hit, "\(fromShared.cache)")
        #expect(catalog.calls("products") == 1)
        let commands = await secondRedis.sent.count
        let local = try await second.detail(id: "p1")
        #expect(local.cache.result == .hit && local.cache.shared == nil)
        #expect(await secondRedis.sent.count == commands)
    }

    @Test func aStaleSharedPageIsRefreshedOnceAndServedStaleMeanwhile() async throws {
        let (first, redis) = try replica()
        let (second, _) = try replica()
        let (third, _) = try replica()
        _ = try await first.detail(id: "p1")
        // Age the shared page past its 60 s TTL, inside its 30 s stale-while-revalidate window.
        let generation = try await currentGeneration(of: "p1", redis: redis)
        let page = keys.page(of: "p1", at: generation)
        _ = try await redis.run(.command(RESPCommand("PEXPIRE", .string(page), 290_000)), deadline: .seconds(1_000_000))
        catalog.hold()
        // The second replica takes the refresh lease, and answers stale at once as L1 would.
        let refreshing = try await second.detail(id: "p1")
        #expect(refreshing.cache.result == .stale && refreshing.cache.shared?.result == .stale, "\(refreshing.cache)")
        await eventually(.live) { catalog.heldCount == 1 }
        // Its refresh holds the lease: the third serves the stale page too, and loads nothing.
        let stale = try await third.detail(id: "p1")
        #expect(stale.cache.result == .stale && stale.cache.shared?.result == .stale, "\(stale.cache)")
        #expect(stale.cache.servedStaleBecause == "revalidating")
        catalog.release()
        // The refresh stored its page and gave the lease up; a replica that has not seen the page
        // reads the refreshed one.
        let lease = keys.lease(of: "p1", at: generation)
        await eventually(.live) {
            (try? await redis.run(.command(RESPCommand("EXISTS", .string(lease))), deadline: .seconds(1_000_000))) == .integer(0)
        }
        let (fourth, _) = try replica()
        let refreshed = try await fourth.detail(id: "p1")
        #expect(refreshed.cache.shared?.result == .hit && (refreshed.cache.shared?.ttlRemaining ?? .zero) > .seconds(50))
        #expect(catalog.calls("products") == 2)
        #expect(events.count("lease won") == 2)
    }

    /// The epoch and generation tokens `id`'s pages are stored under now.
    func currentGeneration(of id: String, redis: SerialRedisRunner) async throws -> SharedGeneration {
        let epoch = try await redis.run(.command(RESPCommand("GET", .string(keys.epoch))), deadline: .seconds(1_000_000))
        let generation = try await redis.run(.command(RESPCommand("GET", .string(keys.generation(of: id)))), deadline: .seconds(1_000_000))
        return SharedGeneration(epoch: try #require(epoch.string), generation: try #require(generation.string))
    }

    @Test func aClientsNoCacheLoadsFromTheUpstreamsNotFromAnotherReplica() async throws {
        let (first, _) = try replica()
        let (second, _) = try replica()
        _ = try await first.detail(id: "p1")
        catalog.bumpVersion()
        let fresh = try await second.detail(id: "p1", noCache: true)
        #expect(fresh.cache.shared == SharedCacheStatus(result: .request))
        #expect(String(decoding: fresh.document.body, as: UTF8.self).contains("v2"))
        #expect(catalog.calls("products") == 2)
    }

    @Test func aLoadThatBeganBeforeAnInvalidationIsStoredNowhere() async throws {
        let (first, _) = try replica()
        let (second, _) = try replica()
        catalog.hold()
        async let old = first.detail(id: "p1")
        await eventually(.live) { catalog.heldCount == 1 }
        catalog.bumpVersion()
        #expect(await second.invalidate(.product("p1")) == .fleet(receivers: 0))
        catalog.release()
        let overtaken = try await old
        #expect(overtaken.cache.shared?.stored == false)
        let fresh = try await second.detail(id: "p1")
        #expect(String(decoding: fresh.document.body, as: UTF8.self).contains("v2"))
        #expect(fresh.cache.shared?.result == .miss)
    }

    @Test func aDeadHolderCostsItsWaitersOneLapseThenOneTakesOver() async throws {
        let (replica, _) = try replica()
        // A holder that took the lease and died: nobody renews it.
        let redis = try SerialRedisRunner(port: server.port)
        let dead = RedisPageStore(redis: redis, keys: keys, leaseDuration: .seconds(60), generationLifetime: .seconds(600))
        guard case .claimed(let claim) = try await dead.read(id: "p1", deadline: .seconds(1_000_000)) else {
            Issue.record("the dead holder did not get the lease")
            return
        }
        async let waiting = replica.detail(id: "p1")
        await eventually(.live) { events.count("lease waited") == 1 }
        // Its lease lapses now, rather than after a wait a loaded host would make unreliable.
        let lease = keys.lease(of: "p1", at: claim.generation)
        _ = try await redis.run(.command(RESPCommand("PEXPIRE", .string(lease), 1)), deadline: .seconds(1_000_000))
        let answer = try await waiting
        #expect(answer.document.status == 200)
        #expect(answer.cache.shared?.result == .miss && answer.cache.shared?.collapsed == true)
        #expect(events.count("lease taken_over") == 1)
        #expect(catalog.calls("products") == 1)
    }

    @Test func withRedisGoneTheBreakerOpensAndPagesStillLoad() async throws {
        let (replica, redis) = try replica(breakerFailures: 3)
        server.stop()
        for index in 0..<10 {
            let answer = try await replica.detail(id: "p\(index)")
            #expect(answer.document.status == 200)
            #expect(answer.cache.shared?.result == .bypass)
        }
        #expect(events.count("breaker open") == 1)
        #expect(await redis.sent.count == 3, "no Redis command while the breaker is open")
        #expect(catalog.calls("products") == 10)
        #expect(await replica.invalidate(.product("p1")) != .fleet(receivers: 0))
    }
}

/// Fleet events as lines, counted by tests.
final class FleetEventLog: ServiceEvents {
    private let lines = Locked<[String]>([])

    func count(_ line: String) -> Int { lines.withLock { $0.filter { $0 == line }.count } }
    var all: [String] { lines.withLock { $0 } }

    func sharedRead(_ result: SharedReadResult) { lines.withLock { $0.append("read \(result.rawValue)") } }
    func lease(_ result: LeaseResult) { lines.withLock { $0.append("lease \(result.rawValue)") } }
    func sharedBreaker(_ state: CircuitBreaker.State) { lines.withLock { $0.append("breaker \(state.label)") } }
}

