import TestSupport
import Testing
@testable import ProductDetails

/// Items of the seed documents' checklists that no other test names directly.
@Suite("Seed checklists")
struct SeedChecklistTests {
    /// Lab checklist: "independent calls use async let" — all three upstream calls are in flight
    /// at the same time, before any of them answers.
    @Test(.timeLimit(.minutes(1))) func theThreeIndependentCallsRunAtOnce() async throws {
        let harness = ServiceHarness()
        let products = harness.catalog.productPort.hold()
        let reviews = harness.catalog.reviewPort.hold()
        let suggestions = harness.catalog.suggestionPort.hold()
        let request = Task { await harness.detail("p1") }
        await products.waitForWaiters()
        await reviews.waitForWaiters()
        await suggestions.waitForWaiters()
        #expect(harness.catalog.productPort.running == 1)
        #expect(harness.catalog.reviewPort.running == 1)
        #expect(harness.catalog.suggestionPort.running == 1)
        harness.catalog.productPort.release()
        harness.catalog.reviewPort.release()
        harness.catalog.suggestionPort.release()
        #expect(await request.value.answer?.document.status == 200)
    }

    /// Cache review, failure mode 7 ("Double for a balance"): money is integer cents, and an
    /// upstream price that is not a whole number of cents is refused, not rounded.
    @Test func aFractionalPriceIsMalformedNotRounded() {
        let body = Array(#"{"id":"p1","name":"Mug","priceInCents":12.5,"currency":"EUR"}"#.utf8)
        #expect(throws: UpstreamFailure.self) { _ = try UpstreamJSON.product(from: body) }
        let whole = Array(#"{"id":"p1","name":"Mug","priceInCents":1250,"currency":"EUR"}"#.utf8)
        #expect((try? UpstreamJSON.product(from: whole))?.priceInCents == 1250)
    }
}
