@testable import Fleet
@testable import ProductDetails
import PureTestSupport
import TestSupport
import Testing
import Timekeeping

/// The fleet's rules with replicas on one in-memory shared store, time moved by hand: one load
/// per product for the whole fleet, a dead holder taken over, the waiter's deadline, the stale
/// refresh, `no-cache`, loads an invalidation overtook, and the shared cache failing. What only a
/// real Redis shows (scripts, keys, pub/sub, faults on the wire) is the live `FleetTests`'.
@Suite("Shared-cache rules on an in-memory store", .timeLimit(.minutes(1)))
struct SharedCacheRuleTests {
    @Test func aHerdOverThreeReplicasCostsOneCallPerRoute() async throws {
        let fleet = Replicas()
        var replicas: [ProductDetailsService] = []
        for _ in 0..<3 { replicas.append(await fleet.replica()) }
        let gate = fleet.catalog.productPort.hold()
        let finished = Finished()
        var tasks: [Task<DetailAnswer, any Error>] = []
        for replica in replicas {
            for _ in 0..<20 { tasks.append(fleet.start(replica, "p1", finished: finished)) }
        }
        // The first loader is held upstream; the other replicas wait for its page.
        await gate.waitForWaiters()
        await eventually { fleet.events.count("lease waited") == 2 }
        fleet.catalog.productPort.release()
        await fleet.drive(until: { finished.value == 60 })
        var answers: [DetailAnswer] = []
        for task in tasks { answers.append(try await task.value) }
        #expect(Set(answers.map(\.document.body)) == [ServiceHarness.expectedBody("p1")])
        #expect(fleet.catalog.productPort.callCount == 1, "\(fleet.events.all)")
        #expect(fleet.catalog.reviewPort.callCount == 1)
        #expect(fleet.catalog.suggestionPort.callCount == 1)
        #expect(fleet.events.count("lease won") == 1)
        #expect(fleet.events.count("lease waited") == 2)
        let collapsedHits = answers.filter { $0.cache.shared?.result == .hit && $0.cache.shared?.collapsed == true }
        #expect(collapsedHits.count == 40)
        #expect(answers.filter { $0.cache.shared?.stored == true }.count == 20)
    }

    @Test func aSharedHitFillsL1AndTheNextAnswerDoesNotAskTheStore() async throws {
        let fleet = Replicas()
        let first = await fleet.replica()
        let second = await fleet.replica()
        _ = try await first.detail(id: "p1")
        fleet.time.advance(by: .seconds(20))
        let fromShared = try await second.detail(id: "p1")
        #expect(fromShared.cache.result == .miss)
        #expect(fromShared.cache.shared == SharedCacheStatus(result: .hit, ttlRemaining: .seconds(40)))
        #expect(fleet.catalog.productPort.callCount == 1)
        let calls = fleet.store.calls
        let local = try await second.detail(id: "p1")
        #expect(local.cache.result == .hit && local.cache.shared == nil)
        // L1 kept the page's age from its first store: 40 s left, not 60.
        #expect(local.cache.ttlRemaining == .seconds(40))
        #expect(fleet.store.calls == calls)
    }

    /// A shared-cache hit is the request's own look: one call to the store, no load started in
    /// the in-flight table, and no upstream work told to the request (its log line said three
    /// upstream attempts when the hit went through a load).
    @Test func aSharedHitIsAnsweredByTheRequestsOwnLookWithoutALoad() async throws {
        let fleet = Replicas()
        let first = await fleet.replica()
        let second = await fleet.replica()
        _ = try await first.detail(id: "p1")
        let calls = fleet.store.calls
        let observer = CountingObserver()
        let answer = try await second.detail(id: "p1", observer: observer)
        #expect(answer.cache.result == .miss && answer.cache.shared?.result == .hit)
        #expect(fleet.store.calls == calls + 1)
        #expect(observer.loads == 0)
        #expect(second.inFlightCount == 0)
        #expect(fleet.events.count("read hit") == 1)
    }

    /// The look's page is kept in L1 only if no invalidation came while it was on its way: the
    /// load token is taken before the look.
    @Test func aPageLookedAtWhileItsProductIsInvalidatedIsNotKept() async throws {
        let fleet = Replicas()
        let first = await fleet.replica()
        let second = await fleet.replica()
        _ = try await first.detail(id: "p1")
        fleet.store.afterEachCall { second.dropCachedCopies(.product("p1")) }
        let looked = try await second.detail(id: "p1")
        #expect(looked.cache.shared?.result == .hit)
        fleet.store.afterEachCall {}
        let calls = fleet.store.calls
        let again = try await second.detail(id: "p1")
        #expect(again.cache.result == .miss, "not an L1 hit: the page read during the invalidation was not kept")
        #expect(fleet.store.calls > calls)
    }

    /// A request for a product this replica is loading joins the load without a look of its own.
    @Test func aRequestForAProductBeingLoadedHereJoinsWithoutALook() async throws {
        let fleet = Replicas()
        let replica = await fleet.replica()
        let gate = fleet.catalog.productPort.hold()
        let finished = Finished()
        let loading = fleet.start(replica, "p1", finished: finished)
        await gate.waitForWaiters()
        let calls = fleet.store.calls
        let joining = fleet.start(replica, "p1", finished: finished)
        await eventually { fleet.events.count("coalesced") == 1 }
        #expect(fleet.store.calls == calls)
        fleet.catalog.productPort.release()
        _ = try await loading.value
        #expect(try await joining.value.cache.collapsed)
    }

    /// A holder that took the lease and died costs its waiters one lease, then one takes over.
    @Test func aDeadHolderCostsItsWaitersOneLapseThenOneTakesOver() async throws {
        let fleet = Replicas(shared: SharedCacheSettings(leaseDuration: .seconds(1)))
        guard case .claimed = try await fleet.store.read(id: "p1", deadline: .seconds(1)) else {
            Issue.record("the dead holder did not get the lease")
            return
        }
        let finished = Finished()
        let waiting = fleet.start(await fleet.replica(), "p1", finished: finished)
        await eventually { fleet.events.count("lease waited") == 1 }
        await fleet.drive(until: { finished.value == 1 })
        let answer = try await waiting.value
        #expect(answer.document.status == 200)
        #expect(answer.cache.shared == SharedCacheStatus(result: .miss, stored: true, collapsed: true))
        #expect(fleet.events.count("lease taken_over") == 1)
        #expect(fleet.catalog.productPort.callCount == 1)
        #expect(fleet.time.now >= .seconds(1), "taken over before the lease lapsed")
    }

    /// Waiting for another replica's load spends the request's deadline: a waiter that gives up
    /// has none left to start a load of its own (which would double the request's time).
    @Test func aWaiterThatGivesUpDoesNotLoadOnANewDeadline() async throws {
        let fleet = Replicas()
        let gate = fleet.catalog.productPort.hold()
        let finished = Finished()
        let held = fleet.start(await fleet.replica(), "p1", finished: finished)
        await gate.waitForWaiters()
        let waiting = fleet.start(await fleet.replica(requestDeadline: .milliseconds(300)), "p1", finished: finished)
        await eventually { fleet.events.count("lease waited") == 1 }
        // Either it gives up, or (the bug) it starts its own load, which the catalogue holds.
        await fleet.drive(until: { finished.value == 1 || fleet.catalog.productPort.callCount > 1 })
        #expect(fleet.time.now < fleet.shared.leaseDuration, "the holder's lease lapsed before the waiter gave up")
        await #expect(throws: ProductDetailsError.sharedLoadTimedOut) { try await waiting.value }
        #expect(fleet.catalog.productPort.callCount == 1, "the waiter went upstream too: \(fleet.events.all)")
        #expect(fleet.events.count("lease waited") == 1)
        fleet.catalog.productPort.release()
        #expect(try await held.value.document.status == 200)
    }

    @Test func aStaleSharedPageIsRefreshedOnceAndServedStaleMeanwhile() async throws {
        let fleet = Replicas()
        _ = try await fleet.replica().detail(id: "p1")
        // Past the 60 s TTL, inside the 30 s stale-while-revalidate window.
        fleet.time.advance(by: .seconds(70))
        fleet.rename(to: "refreshed")
        let gate = fleet.catalog.productPort.hold()
        // The second replica takes the refresh lease, and answers stale at once as L1 would.
        let refreshing = try await fleet.replica().detail(id: "p1")
        #expect(refreshing.cache.result == .stale)
        #expect(refreshing.cache.shared == SharedCacheStatus(result: .stale, ttlRemaining: .seconds(-10)))
        await gate.waitForWaiters()
        // Its refresh holds the lease: the third serves the stale page too, and loads nothing.
        let stale = try await fleet.replica().detail(id: "p1")
        #expect(stale.cache.result == .stale && stale.cache.shared?.result == .stale)
        #expect(stale.cache.servedStaleBecause == "revalidating")
        #expect(fleet.catalog.productPort.callCount == 2)
        fleet.catalog.productPort.release()
        // The refresh stored its page and gave the lease up.
        await fleet.drive(until: { !fleet.store.isLeased("p1") })
        let refreshed = try await fleet.replica().detail(id: "p1")
        #expect(refreshed.cache.shared?.result == .hit)
        #expect((refreshed.cache.shared?.ttlRemaining ?? .zero) > .seconds(59), "the old page, not the refreshed one")
        #expect(String(decoding: refreshed.document.body, as: UTF8.self).contains("refreshed"))
        #expect(fleet.catalog.productPort.callCount == 2)
        #expect(fleet.events.count("lease won") == 2)
    }

    /// `no-cache` asks for the origin's answer, not another replica's copy, and shares it: a
    /// replica with a cold L1 then gets the refreshed page from the shared cache, not the older one.
    @Test func aClientsNoCacheLoadsFromTheUpstreamsAndSharesTheRefreshedPage() async throws {
        let fleet = Replicas()
        _ = try await fleet.replica().detail(id: "p1")
        fleet.rename(to: "edited")
        let fresh = try await fleet.replica().detail(id: "p1", noCache: true)
        #expect(fresh.cache.shared == SharedCacheStatus(result: .request, stored: true))
        #expect(String(decoding: fresh.document.body, as: UTF8.self).contains("edited"))
        #expect(fleet.catalog.productPort.callCount == 2)
        #expect(!fleet.store.isLeased("p1"), "the lease went with the store")
        let cold = try await fleet.replica().detail(id: "p1")
        #expect(cold.cache.shared?.result == .hit)
        #expect(String(decoding: cold.document.body, as: UTF8.self).contains("edited"), "the shared copy is the refreshed one")
        #expect(fleet.catalog.productPort.callCount == 2)
    }

    /// A refresh does not wait for a load another replica runs: it loads alone, says so, and
    /// leaves that replica's lease alone.
    @Test func aClientsNoCacheWhileAnotherReplicaLoadsLoadsAloneAndSaysSo() async throws {
        let fleet = Replicas()
        let holder = try #require(try await fleet.store.claimCurrent(id: "p1", deadline: .seconds(1)))
        let fresh = try await fleet.replica().detail(id: "p1", noCache: true)
        #expect(fresh.cache.shared == SharedCacheStatus(result: .request, notStored: .leaseHeld))
        #expect(fleet.catalog.productPort.callCount == 1)
        #expect(try await fleet.store.renew(holder, deadline: .seconds(1)), "the holder's lease is untouched")
    }

    /// An invalidation replaces the product's generation: a load that began before it holds a
    /// lease under the old one, and its store is refused.
    @Test func aLoadThatBeganBeforeAnInvalidationIsStoredNowhere() async throws {
        let fleet = Replicas()
        let first = await fleet.replica()
        let second = await fleet.replica()
        let gate = fleet.catalog.productPort.hold()
        let finished = Finished()
        let old = fleet.start(first, "p1", finished: finished)
        await gate.waitForWaiters()
        fleet.rename(to: "edited")
        fleet.store.receivers = 2
        #expect(await second.invalidate(.product("p1")) == .fleet(receivers: 2))
        fleet.catalog.productPort.release()
        let overtaken = try await old.value
        #expect(overtaken.cache.shared == SharedCacheStatus(result: .miss, stored: false))
        let fresh = try await second.detail(id: "p1")
        #expect(String(decoding: fresh.document.body, as: UTF8.self).contains("edited"))
        #expect(fresh.cache.shared == SharedCacheStatus(result: .miss, stored: true))
    }

    @Test func withTheStoreFailingTheBreakerOpensAndPagesStillLoad() async throws {
        let fleet = Replicas(shared: SharedCacheSettings(breakerFailures: 3))
        let replica = await fleet.replica()
        fleet.store.fail(with: .unavailable("connection refused"))
        for index in 0..<10 {
            let answer = try await replica.detail(id: "p\(index)")
            #expect(answer.document.status == 200)
            #expect(answer.cache.shared == SharedCacheStatus(result: .bypass))
        }
        #expect(fleet.events.count("redis breaker open") == 1)
        #expect(fleet.store.calls == 1 + 3, "the log read when it subscribed, then no call while the breaker is open")
        #expect(fleet.catalog.productPort.callCount == 10)
        #expect(fleet.events.count("read error") == 3)
        #expect(await replica.invalidate(.product("p1")) == .localOnly(.unavailable(
            "The shared cache is not being asked: its circuit breaker is open after repeated failures.")))
    }

    /// Redis time is one budget for the whole miss: a slow store (100 ms a look, of 250) lets
    /// a waiter look three times, then it loads alone; the pauses between looks are not charged.
    @Test func aWaiterWhoseLooksSpentTheBudgetLoadsAlone() async throws {
        let fleet = Replicas(shared: SharedCacheSettings(timeout: .milliseconds(250)))
        guard case .claimed = try await fleet.store.read(id: "p1", deadline: .seconds(1)) else {
            Issue.record("the other holder did not get the lease")
            return
        }
        let time = fleet.time
        fleet.store.afterEachCall { time.advance(by: .milliseconds(100)) }
        let finished = Finished()
        let waiting = fleet.start(await fleet.replica(), "p1", finished: finished)
        await fleet.drive(until: { finished.value == 1 })
        let answer = try await waiting.value
        #expect(answer.document.status == 200)
        #expect(answer.cache.shared == SharedCacheStatus(result: .bypass, collapsed: true))
        #expect(fleet.events.count("read miss") == 3, "\(fleet.events.all)")
        #expect(fleet.events.count("lease waited") == 1)
        #expect(fleet.catalog.productPort.callCount == 1)
        #expect(fleet.store.isLeased("p1"), "the other holder's lease was not taken")
    }

    /// A read that times out costs the miss its Redis budget once, then it loads alone.
    @Test func aReadThatTimesOutLoadsAlone() async throws {
        let fleet = Replicas()
        let replica = await fleet.replica()
        fleet.store.fail(with: .timedOut)
        let answer = try await replica.detail(id: "p1")
        #expect(answer.document.status == 200)
        #expect(answer.cache.shared == SharedCacheStatus(result: .bypass))
        #expect(fleet.events.count("read timeout") == 1)
        #expect(fleet.store.calls == 1 + 1, "the log read when it subscribed, then the one read")
    }

    /// A page answered without its late reviews is shared at once while its holder keeps the
    /// lease; when the reviews come, the completed page replaces it for the whole fleet, from
    /// that one load.
    @Test func aPageCompletedLateIsSharedAtOnceAndThenReplacedByTheWholeOne() async throws {
        var settings = ServiceSettings()
        settings.optionalPartGrace = .milliseconds(20)
        let fleet = Replicas(service: settings)
        let holder = await fleet.replica()
        let reviews = fleet.catalog.reviewPort.hold()
        let finished = Finished()
        let loading = fleet.start(holder, "p1", finished: finished)
        await fleet.drive(until: { finished.value == 1 })
        let first = try await loading.value
        #expect(first.document.missing == [.reviews])
        #expect(first.cache.withoutWaiting == .grace)
        #expect(first.cache.shared?.stored == true, "the degraded page is shared at once")
        #expect(fleet.store.isLeased("p1"), "the lease is kept for the completed page")
        let read = try await fleet.replica().detail(id: "p1")
        #expect(read.document.missing == [.reviews] && read.cache.shared?.result == .hit)

        await reviews.waitForWaiters()
        fleet.catalog.reviewPort.release()
        await fleet.drive(until: { !fleet.store.isLeased("p1") })
        let late = try await fleet.replica().detail(id: "p1")
        #expect(late.document.missing.isEmpty && late.cache.shared?.result == .hit)
        #expect(late.document.body == ServiceHarness.expectedBody("p1"))
        #expect(fleet.catalog.productPort.callCount == 1, "one load for the whole fleet: \(fleet.events.all)")
        #expect(fleet.catalog.reviewPort.callCount == 1)
    }

    /// One renewal that failed leaves two thirds of the lease: the holder goes on renewing, so
    /// the lease does not lapse under its running load.
    @Test func aFailedRenewalIsTriedAgainAtTheNextInterval() async throws {
        let lease = Duration.seconds(3)
        var settings = ServiceSettings()
        settings.requestDeadline = .seconds(30)
        let fleet = Replicas(shared: SharedCacheSettings(leaseDuration: lease), service: settings)
        fleet.store.failNextRenewal(with: .timedOut)
        let gate = fleet.catalog.productPort.hold()
        let finished = Finished()
        let load = fleet.start(await fleet.replica(), "p1", finished: finished)
        await gate.waitForWaiters()
        for renewal in 1...3 {
            #expect(await fleet.time.waitForSleepers())
            fleet.time.advance(by: lease / 3)
            await eventually { fleet.store.renewals == renewal }
        }
        #expect(fleet.time.now == lease, "past the lease taken at first")
        fleet.catalog.productPort.release()
        #expect(try await load.value.cache.shared?.stored == true, "the lease was still held at the store")
    }
}
