import PureTestSupport
import TestSupport
import Testing
@testable import ProductDetails

/// The request a load is started for hears of that load's upstream work (the load, its retries);
/// a request that joins it, or is answered from the cache, hears nothing: what each request's
/// log line counts as its `upstreamAttempts`.
struct LoadObserverTests {
    let harness = ServiceHarness()
    var catalog: FakeCatalog { harness.catalog }

    @Test func theStarterHearsOfItsLoadAndItsRetriesAndAJoinerOfNothing() async throws {
        catalog.productPort.respond { id, number in number == 1 ? .failure(.status(503, retryAfter: nil)) : .success(FakeCatalog.product(id)) }
        let gate = catalog.productPort.hold()
        let (starter, joiner) = (CountingObserver(), CountingObserver())
        let harness = harness
        let first = Task { await harness.detail("p1", observer: starter) }
        await gate.waitForWaiters(1)
        let second = Task { await harness.detail("p1", observer: joiner) }
        await eventually { harness.events.count("coalesced") == 1 }
        catalog.productPort.release()
        #expect(await first.value.answer?.cache.collapsed == false)
        #expect(await second.value.answer?.cache.collapsed == true)
        #expect(catalog.productPort.callCount == 2)
        #expect(starter.loads == 1 && starter.retries == 1)
        #expect(joiner.loads == 0 && joiner.retries == 0)

        let hit = CountingObserver()
        #expect(await harness.detail("p1", observer: hit).answer?.cache.result == .hit)
        #expect(hit.loads == 0 && hit.retries == 0)
    }

    @Test func aFailedLoadStillCountsForItsStarter() async {
        catalog.productPort.respond { _, _ in .failure(.status(503, retryAfter: nil)) }
        let observer = CountingObserver()
        #expect(await harness.detail("p1", observer: observer).answer == nil)
        #expect(observer.loads == 1 && observer.retries == 2)
    }

    /// The stale answer's request starts the refresh: it hears of it before it is answered; the
    /// next stale answer, while that refresh runs, starts nothing.
    @Test func theRequestThatStartsARefreshHearsOfIt() async {
        _ = await harness.detail("p1")
        harness.time.advance(by: .seconds(70))  // inside the stale-while-revalidate window
        let gate = catalog.productPort.hold()
        let (starter, later) = (CountingObserver(), CountingObserver())
        #expect(await harness.detail("p1", observer: starter).answer?.cache.servedStaleBecause == "revalidating")
        #expect(await harness.detail("p1", observer: later).answer?.cache.servedStaleBecause == "revalidating")
        #expect(starter.loads == 1)
        #expect(later.loads == 0)
        await gate.waitForWaiters(1)
        catalog.productPort.release()
        await eventually { harness.service.inFlightCount == 0 }
    }

    @Test func aBatchHearsOfEveryLoadItStarts() async throws {
        let observer = CountingObserver()
        _ = try await harness.service.details(ids: ["p1", "p2", "p1"], requestID: "batch", observer: observer)
        #expect(observer.loads == 2)
        _ = try await harness.service.details(ids: ["p1", "p3"], requestID: "batch", observer: observer)
        #expect(observer.loads == 3)
    }
}
