import PureTestSupport
import TestSupport
import Testing
@testable import ProductDetails
import Timekeeping

/// The service when an upstream is slow or failing: an optional part's grace and late completion,
/// and what an open breaker answers (Issue: gray failure).
@Suite("Gray failure in the service")
struct GrayFailureServiceTests {
    static func settings(grace: Duration = .milliseconds(100)) -> ServiceSettings {
        var settings = ServiceSettings()
        settings.optionalPartGrace = grace
        settings.hedging = nil
        return settings
    }

    @Test func aLateOptionalPartIsLeftOutWhenTheGraceEndsAndCompletesTheCachedPage() async throws {
        let harness = ServiceHarness(Self.settings())
        let reviews = harness.catalog.reviewPort.hold()
        let answer = Task { await harness.detail("p1") }
        await reviews.waitForWaiters()
        await eventually { harness.time.scheduledCount == 1 }
        harness.time.advance(by: .milliseconds(99))
        #expect(harness.time.scheduledCount == 1, "still within the grace")
        harness.time.advance(by: .milliseconds(1))
        let first = try #require(await answer.value.answer)
        #expect(first.document.missing == [.reviews])
        #expect(first.cache.withoutWaiting == .grace)
        #expect(first.cache.ttlRemaining == .seconds(5), "kept for the degraded TTL")
        #expect(harness.events.all.contains("omitted reviews grace"))

        // The load went on: when the reviews arrive the cached page becomes the complete one.
        reviews.open()
        await eventually { harness.service.lookUpDetail(id: "p1").answer?.document.missing == [] }
        let later = await harness.detail("p1")
        #expect(later.answer?.document.body == ServiceHarness.expectedBody("p1"))
        #expect(later.answer?.cache.result == .hit)
        #expect(later.answer?.cache.ttlRemaining == .seconds(60))
        #expect(harness.catalog.reviewPort.callCount == 1, "no second load")
        #expect(harness.events.count("loadStarted") == 1)
    }

    @Test func partsThatArriveWithinTheGraceAreWaitedFor() async throws {
        let harness = ServiceHarness(Self.settings())
        let suggestions = harness.catalog.suggestionPort.hold()
        let answer = Task { await harness.detail("p1") }
        await suggestions.waitForWaiters()
        await eventually { harness.time.scheduledCount == 1 }
        harness.time.advance(by: .milliseconds(50))
        suggestions.open()
        let page = try #require(await answer.value.answer)
        #expect(page.document.body == ServiceHarness.expectedBody("p1"))
        #expect(page.cache.withoutWaiting == nil)
        await eventually { harness.time.scheduledCount == 0 }
    }

    @Test func anInvalidationDuringTheLateWaitKeepsTheCompletedPageOut() async throws {
        let harness = ServiceHarness(Self.settings())
        let reviews = harness.catalog.reviewPort.hold()
        let answer = Task { await harness.detail("p1") }
        await reviews.waitForWaiters()
        await eventually { harness.time.scheduledCount == 1 }
        harness.time.advance(by: .milliseconds(100))
        _ = await answer.value
        await harness.service.invalidate(.product("p1"))
        reviews.open()
        await eventually { harness.catalog.reviewPort.running == 0 }
        for _ in 0..<100 { await Task.yield() }
        #expect(harness.service.cacheEntryCount == 0, "a load an invalidation overtook never stores")
    }

    @Test func withAZeroGraceTheProductAloneIsWaitedFor() async throws {
        let harness = ServiceHarness(Self.settings(grace: .zero))
        let reviews = harness.catalog.reviewPort.hold()
        let page = try #require(await harness.detail("p1").answer)
        #expect(page.document.missing.contains(.reviews), "answered as soon as the product was here")
        reviews.open()
    }

    @Test func theLastWaiterLeavingCancelsTheOptionalCalls() async throws {
        let harness = ServiceHarness(Self.settings())
        let product = harness.catalog.productPort.hold()
        let reviews = harness.catalog.reviewPort.hold()
        let answer = Task { await harness.detail("p1") }
        await product.waitForWaiters()
        await reviews.waitForWaiters()
        answer.cancel()
        await eventually { harness.catalog.reviewPort.cancellations == 1 && harness.catalog.productPort.cancellations == 1 }
        await eventually { harness.service.inFlightCount == 0 }
    }

    // MARK: Open breakers

    /// Opens `upstream`'s breaker with five failed calls.
    static func open(_ upstream: Upstream, in harness: ServiceHarness) {
        let breaker = harness.service.breaker(for: upstream)
        for _ in 0..<5 {
            _ = breaker.admit()
            breaker.record(.timedOut)
        }
    }

    @Test func anOptionalPartWhoseBreakerIsOpenIsLeftOutWithoutACallOrAWait() async throws {
        let harness = ServiceHarness(Self.settings())
        Self.open(.reviews, in: harness)
        let page = try #require(await harness.detail("p1").answer)
        #expect(page.document.missing == [.reviews])
        #expect(page.cache.withoutWaiting == .breaker)
        #expect(harness.catalog.reviewPort.callCount == 0)
        #expect(harness.time.now == .zero, "nothing waited")
        #expect(harness.events.all.contains("omitted reviews breaker"))
        // A hung reviews route does not touch the other upstreams' breakers.
        #expect(harness.service.breaker(for: .products).state == .closed)
    }

    @Test func aRequiredPartWhoseBreakerIsOpenIs503WithRetryAfterAndNoCall() async throws {
        let harness = ServiceHarness(Self.settings())
        Self.open(.products, in: harness)
        harness.time.advance(by: .milliseconds(1_500))
        let failure = await harness.detail("p1")
        guard case .failure(let error) = failure else {
            Issue.record("expected a 503, got \(failure)")
            return
        }
        #expect(error.status == 503)
        #expect(error.retryAfterSeconds == 4, "3.5 s of open time left, rounded up")
        #expect(harness.catalog.productPort.callCount == 0)
        // no-cache cannot force a call through an open breaker.
        #expect((try? await harness.detail("p1", noCache: true).get()) == nil)
        #expect(harness.catalog.productPort.callCount == 0)
        await eventually { harness.catalog.reviewPort.running == 0 && harness.catalog.suggestionPort.running == 0 }
    }

    @Test func aCachedPageIsServedAtOnceWhileTheProductBreakerIsOpen() async throws {
        var settings = Self.settings()
        settings.staleWhileRevalidate = .zero
        let harness = ServiceHarness(settings)
        _ = await harness.detail("p1")
        harness.time.advance(by: .seconds(61))
        Self.open(.products, in: harness)
        let stale = try #require(await harness.detail("p1").answer)
        #expect(stale.cache.result == .stale)
        #expect(stale.cache.servedStaleBecause == "breaker-open")
        #expect(harness.catalog.productPort.callCount == 1, "only the first load's call")
        // no-cache too: the open breaker sends it to the cached page.
        let forced = try #require(await harness.detail("p1", noCache: true).answer)
        #expect(forced.cache.result == .stale)
        #expect(harness.catalog.productPort.callCount == 1)
    }

    @Test func theTrialAfterTheOpenTimeClosesTheBreakerAndPagesAreWholeAgain() async throws {
        let harness = ServiceHarness(Self.settings())
        Self.open(.reviews, in: harness)
        #expect(try #require(await harness.detail("p1").answer).document.missing == [.reviews])
        harness.time.advance(by: .seconds(5))
        let healed = try #require(await harness.detail("p2").answer)
        #expect(healed.document.missing == [])
        #expect(harness.service.breaker(for: .reviews).state == .closed)
        #expect(harness.events.all.contains("breaker reviews half_open") && harness.events.all.contains("breaker reviews closed"))
    }
}

extension DetailLookup {
    /// The answer when the look-up alone answered (a fresh hit).
    var answer: DetailAnswer? {
        if case .answered(let answer) = self { return answer }
        return nil
    }
}
