import Foundation
import PureTestSupport
import TestSupport
import Testing
@testable import ProductDetails

struct ProductDetailsServiceTests {
    let harness = ServiceHarness()
    var catalog: FakeCatalog { harness.catalog }

    @Test func theMergedDocumentHasTheExactBytesAndATagOfThem() async throws {
        let answer = try #require(await harness.detail("p1").answer)
        let expected = #"{"product":{"id":"p1","name":"Product p1","priceInCents":1999,"currency":"EUR"},"#
            + #""reviews":[{"id":"p1-r1","rating":5,"text":"Great \"stuff\"\u000a"},{"id":"p1-r2","rating":2,"text":"meh"}],"#
            + #""suggested":[{"id":"p1-s1","name":"Also nice","priceInCents":500,"currency":"EUR"}]}"#
        #expect(String(decoding: answer.document.body, as: UTF8.self) == expected)
        #expect(answer.document.body == ServiceHarness.expectedBody("p1"))
        #expect(answer.document.status == 200)
        #expect(answer.document.etag == EntityTag.strong(for: answer.document.body))
        #expect(answer.document.missing.isEmpty)
        #expect(answer.cache == CacheOutcome(result: .miss, collapsed: false, ttlRemaining: .seconds(60)))
        #expect(catalog.productPort.calls.map(\.call) == [UpstreamCall(timeout: .seconds(1), requestID: "req-p1")])
        #expect(catalog.reviewPort.calls.map(\.id) == ["p1"])
        #expect(catalog.suggestionPort.calls.map(\.id) == ["p1"])
    }

    @Test func aSecondRequestIsAHitWithTheRemainingTTL() async throws {
        _ = await harness.detail("p1")
        harness.time.advance(by: .seconds(20))
        let answer = try #require(await harness.detail("p1").answer)
        #expect(answer.cache == CacheOutcome(result: .hit, ttlRemaining: .seconds(40)))
        #expect(answer.document.body == ServiceHarness.expectedBody("p1"))
        #expect(catalog.productPort.callCount == 1)
        #expect(harness.events.count("cache hit") == 1)
        #expect(harness.events.count("cache miss") == 1)
        #expect(harness.service.cacheEntryCount == 1)
        #expect(harness.service.cacheBytes > ServiceHarness.expectedBody("p1").count)
    }

    @Test func aThousandConcurrentRequestsCallEachUpstreamOnce() async throws {
        let gate = catalog.productPort.hold()
        let harness = harness
        let answers = await withTaskGroup(of: Result<DetailAnswer, ProductDetailsError>.self) { group in
            for _ in 0..<1_000 {
                group.addTask { await harness.detail("hot") }
            }
            await gate.waitForWaiters(1)
            await eventually { harness.events.count("coalesced") == 999 }
            catalog.productPort.release()
            var answers: [Result<DetailAnswer, ProductDetailsError>] = []
            for await answer in group { answers.append(answer) }
            return answers
        }
        #expect(answers.count == 1_000)
        #expect(answers.allSatisfy { $0.answer?.document.body == ServiceHarness.expectedBody("hot") })
        #expect(answers.filter { $0.answer?.cache.collapsed == true }.count == 999)
        #expect(catalog.productPort.callCount == 1)
        #expect(catalog.reviewPort.callCount == 1)
        #expect(catalog.suggestionPort.callCount == 1)
        #expect(harness.service.inFlightCount == 0)
    }

    @Test func anInvalidIDIs400BeforeTouchingAnything() async {
        for id in ["", "has space", "semi;colon", String(repeating: "a", count: 65), "é", "../etc"] {
            #expect(await harness.detail(id) == .failure(.invalidID))
        }
        #expect(catalog.productPort.callCount == 0)
        #expect(harness.events.all.isEmpty)
    }

    @Test func idValidation() {
        #expect(ProductDetailsService.isValidID("aZ09_-"))
        #expect(ProductDetailsService.isValidID(String(repeating: "x", count: 64)))
        #expect(!ProductDetailsService.isValidID(String(repeating: "x", count: 65)))
        #expect(!ProductDetailsService.isValidID(""))
        #expect(!ProductDetailsService.isValidID("a/b"))
        #expect(!ProductDetailsService.isValidID("a.b"))
        // Inline and heap strings alike, and a byte of a multi-byte character.
        #expect(ProductDetailsService.isValidID("sku-0123456789_ABCDEF"))
        #expect(!ProductDetailsService.isValidID("sku-0123456789 ABCDEF"))
        #expect(!ProductDetailsService.isValidID("p\u{e9}"))
        #expect(ProductDetailsService.isValidID(bytes: UnsafeBufferPointer(start: nil, count: 0)) == false)
    }

    @Test func aProduct404IsA404DocumentCachedBriefly() async throws {
        catalog.productPort.respond { _, _ in .failure(.notFound) }
        let answer = try #require(await harness.detail("gone").answer)
        #expect(answer.document.status == 404)
        #expect(Array(answer.document.body) == ProductDetailsError.notFound(id: "gone").problemJSON)
        #expect(answer.cache.ttlRemaining == .seconds(5))
        #expect(catalog.productPort.callCount == 1)

        harness.time.advance(by: .seconds(4))
        #expect(await harness.detail("gone").answer?.cache.result == .hit)
        harness.time.advance(by: .seconds(1))
        #expect(await harness.detail("gone").answer?.cache.result == .miss)
        #expect(catalog.productPort.callCount == 2)
    }

    @Test func failingReviewsGiveA200WithReviewsMissingCachedBriefly() async throws {
        catalog.reviewPort.respond { _, _ in .failure(.status(500, retryAfter: nil)) }
        let answer = try #require(await harness.detail("p1").answer)
        #expect(answer.document.status == 200)
        #expect(answer.document.missing == [.reviews])
        #expect(answer.cache.ttlRemaining == .seconds(5))
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(answer.document.body)) as? [String: Any])
        #expect((parsed["reviews"] as? [Any])?.isEmpty == true)
        #expect(parsed["missing"] as? [String] == ["reviews"])
        #expect((parsed["suggested"] as? [Any])?.count == 1)
        #expect(catalog.reviewPort.callCount == 3)  // retried, then given up
    }

    @Test func failingSuggestionsAreListedToo() async throws {
        catalog.reviewPort.respond { _, _ in .failure(.timedOut) }
        catalog.suggestionPort.respond { _, _ in .failure(.malformedBody("x")) }
        let answer = try #require(await harness.detail("p1").answer)
        #expect(answer.document.missing == [.reviews, .suggested])
        #expect(answer.document.status == 200)
    }

    @Test func aMalformedProductIs502AndNotRetried() async {
        catalog.productPort.respond { _, _ in .failure(.malformedBody("wrong type at priceInCents")) }
        let result = await harness.detail("p1")
        #expect(result.answer == nil)
        guard case .failure(let error) = result else { return }
        #expect(error.status == 502)
        #expect(catalog.productPort.callCount == 1)
        #expect(harness.service.cacheEntryCount == 0)
    }

    @Test func serverErrorsAfterRetriesAre502() async {
        catalog.productPort.respond { _, _ in .failure(.status(503, retryAfter: nil)) }
        guard case .failure(let error) = await harness.detail("p1") else { Issue.record("expected failure"); return }
        #expect(error.status == 502)
        #expect(catalog.productPort.callCount == 3)
    }

    @Test func timeoutsAre504() async {
        catalog.productPort.respond { _, _ in .failure(.timedOut) }
        guard case .failure(let error) = await harness.detail("p1") else { Issue.record("expected failure"); return }
        #expect(error.status == 504)
        #expect(error.title == "Gateway Timeout")
        #expect(catalog.productPort.callCount == 3)
    }

    @Test func aFailureIsNotCachedSoTheNextRequestLoadsAgain() async {
        catalog.productPort.respond { _, number in number <= 3 ? .failure(.connectFailed) : .success(FakeCatalog.product("p1")) }
        #expect(await harness.detail("p1").answer == nil)
        #expect(await harness.detail("p1").answer?.document.status == 200)
    }

    @Test func staleIfErrorServesTheOldDocumentWhenTheLoadFails() async throws {
        _ = await harness.detail("p1")
        harness.time.advance(by: .seconds(100))  // past TTL (60) and SWR (30), inside stale-if-error (300)
        catalog.productPort.respond { _, _ in .failure(.status(503, retryAfter: nil)) }
        let answer = try #require(await harness.detail("p1").answer)
        #expect(answer.document.body == ServiceHarness.expectedBody("p1"))
        #expect(answer.cache == CacheOutcome(result: .stale, ttlRemaining: .seconds(-40), servedStaleBecause: "error"))
        harness.time.advance(by: .seconds(300))
        #expect(await harness.detail("p1").answer == nil)
    }

    @Test func noCacheReloadsEvenWhenFresh() async {
        _ = await harness.detail("p1")
        let answer = await harness.detail("p1", noCache: true).answer
        #expect(answer?.cache.result == .miss)
        #expect(catalog.productPort.callCount == 2)
    }

    @Test func noCacheStillJoinsALoadInFlight() async throws {
        let gate = catalog.productPort.hold()
        let harness = harness
        let first = Task { await harness.detail("p1") }
        await gate.waitForWaiters(1)
        let second = Task { await harness.detail("p1", noCache: true) }
        await eventually { harness.events.count("coalesced") == 1 }
        catalog.productPort.release()
        #expect(await first.value.answer?.cache.collapsed == false)
        #expect(await second.value.answer?.cache.collapsed == true)
        #expect(catalog.productPort.callCount == 1)
    }

    @Test func aZeroTTLDisablesCachingButLoadsStillCoalesce() async throws {
        let harness = ServiceHarness(ServiceSettings(ttl: .zero))
        let gate = harness.catalog.productPort.hold()
        let first = Task { await harness.detail("p1") }
        await gate.waitForWaiters(1)
        let second = Task { await harness.detail("p1") }
        await eventually { harness.events.count("coalesced") == 1 }
        harness.catalog.productPort.release()
        #expect(await first.value.answer?.cache.ttlRemaining == nil)
        #expect(await second.value.answer?.cache.collapsed == true)
        #expect(harness.service.cacheEntryCount == 0)
        _ = await harness.detail("p1")
        #expect(harness.catalog.productPort.callCount == 2)
    }

    @Test func beyondMaxInFlightLoadsNewLoadsAre503() async {
        let harness = ServiceHarness(ServiceSettings(maxInFlightLoads: 1))
        let gate = harness.catalog.productPort.hold()
        let running = Task { await harness.detail("a") }
        await gate.waitForWaiters(1)
        guard case .failure(let error) = await harness.detail("b") else { Issue.record("expected 503"); return }
        #expect(error.status == 503)
        #expect(error.retryAfter != nil)
        harness.catalog.productPort.release()
        #expect(await running.value.answer?.document.status == 200)
    }

    @Test func aCancelledRequestIsCancellationNotAnErrorAndItsLoadIsAbandoned() async {
        let gate = catalog.productPort.hold()
        let harness = harness
        let request = Task { await harness.detail("p1") }
        await gate.waitForWaiters(1)
        request.cancel()
        let result = await request.value
        #expect(result == .failure(.cancelled))
        if case .failure(let error) = result { #expect(error.isCancellation) }
        await eventually { catalog.productPort.cancellations == 1 }
        await eventually { harness.service.inFlightCount == 0 }
        #expect(harness.events.count("loadCancelled") == 1)
        #expect(harness.service.cacheEntryCount == 0)
    }
}
