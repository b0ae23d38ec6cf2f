import PureTestSupport
import TestSupport
import Testing
@testable import ProductDetails

/// Stale-while-revalidate and invalidation, step by step.
struct ServiceFreshnessTests {
    let harness = ServiceHarness()
    var catalog: FakeCatalog { harness.catalog }

    @Test func staleWhileRevalidateServesStaleAndStartsExactlyOneRefresh() async throws {
        _ = await harness.detail("p1")
        harness.time.advance(by: .seconds(70))  // 10 s into the 30 s SWR window
        let gate = catalog.productPort.hold()
        let harness = harness
        let answers = await withTaskGroup(of: Result<DetailAnswer, ProductDetailsError>.self) { group in
            for _ in 0..<20 { group.addTask { await harness.detail("p1") } }
            var answers: [Result<DetailAnswer, ProductDetailsError>] = []
            for await answer in group { answers.append(answer) }
            return answers
        }
        #expect(answers.allSatisfy {
            $0.answer?.cache == CacheOutcome(result: .stale, ttlRemaining: .seconds(-10), servedStaleBecause: "revalidating")
        })
        await gate.waitForWaiters(1)
        #expect(catalog.productPort.callCount == 2)  // the first load and one refresh
        #expect(harness.service.inFlightCount == 1)
        catalog.productPort.release()
        await eventually { harness.service.inFlightCount == 0 }
        let after = try #require(await harness.detail("p1").answer)
        #expect(after.cache == CacheOutcome(result: .hit, ttlRemaining: .seconds(60)))
        #expect(catalog.productPort.callCount == 2)
    }

    @Test func aFailedRefreshKeepsTheStaleEntry() async throws {
        _ = await harness.detail("p1")
        harness.time.advance(by: .seconds(61))
        catalog.productPort.respond { _, _ in .failure(.connectionReset) }
        #expect(await harness.detail("p1").answer?.cache.servedStaleBecause == "revalidating")
        await eventually { harness.service.inFlightCount == 0 }
        #expect(catalog.productPort.callCount == 4)  // one load, one refresh of three attempts
        let again = try #require(await harness.detail("p1").answer)
        #expect(again.cache.result == .stale)
        #expect(again.document.body == ServiceHarness.expectedBody("p1"))
    }

    @Test func aDegradedDocumentIsRefreshedOnceItsShortTTLPasses() async throws {
        catalog.reviewPort.respond { _, _ in .failure(.connectFailed) }
        #expect(await harness.detail("p1").answer?.document.missing == [.reviews])
        harness.time.advance(by: .seconds(6))
        catalog.reviewPort.respond { id, _ in .success(FakeCatalog.reviews(id)) }
        #expect(await harness.detail("p1").answer?.cache.result == .stale)
        await eventually { harness.service.inFlightCount == 0 }
        let healed = try #require(await harness.detail("p1").answer)
        #expect(healed.cache.result == .hit)
        #expect(healed.document.missing.isEmpty)
        #expect(healed.document.body == ServiceHarness.expectedBody("p1"))
    }

    @Test func invalidationDuringALoadAnswersItsWaitersButStoresNothing() async throws {
        let gate = catalog.productPort.hold()
        let harness = harness
        let waiting = Task { await harness.detail("p1") }
        await gate.waitForWaiters(1)
        await harness.service.invalidate(.product("p1"))
        catalog.productPort.release()
        let answer = try #require(await waiting.value.answer)
        #expect(answer.document.body == ServiceHarness.expectedBody("p1"))
        #expect(answer.cache.ttlRemaining == nil)
        #expect(harness.service.cacheEntryCount == 0)
    }

    @Test func requestsAfterAnInvalidationNeverJoinTheOlderLoad() async throws {
        let gate = catalog.productPort.hold()
        let harness = harness
        let before = Task { await harness.detail("p1") }
        await gate.waitForWaiters(1)
        await harness.service.invalidate(.product("p1"))
        let after = Task { await harness.detail("p1") }
        await gate.waitForWaiters(2)
        #expect(catalog.productPort.callCount == 2)
        catalog.productPort.release()
        #expect(await before.value.answer?.cache.collapsed == false)
        #expect(await after.value.answer?.cache == CacheOutcome(result: .miss, ttlRemaining: .seconds(60)))
        #expect(harness.service.cacheEntryCount == 1)
    }

    @Test func invalidateAllForgetsEverythingAndRefusesOlderLoads() async throws {
        _ = await harness.detail("a")
        let gate = catalog.productPort.hold()
        let harness = harness
        let loading = Task { await harness.detail("b") }
        await gate.waitForWaiters(1)
        await harness.service.invalidate(.everything)
        #expect(harness.service.cacheEntryCount == 0)
        catalog.productPort.release()
        #expect(await loading.value.answer?.document.status == 200)
        #expect(harness.service.cacheEntryCount == 0)
        #expect(await harness.detail("a").answer?.cache.result == .miss)
    }

    @Test func invalidatingOneIDKeepsTheOthers() async {
        _ = await harness.detail("a")
        _ = await harness.detail("b")
        await harness.service.invalidate(.product("a"))
        #expect(await harness.detail("a").answer?.cache.result == .miss)
        #expect(await harness.detail("b").answer?.cache.result == .hit)
    }
}
