import TestSupport
import Testing
@testable import ProductDetails

/// A detail page looks the cache up once: synchronously, then the waiting part goes on from what
/// that look-up found.
struct DetailLookupTests {
    let harness = ServiceHarness()

    @Test func aFreshDocumentIsAnsweredByTheLookUpItself() async throws {
        _ = await harness.detail("p1")
        guard case .answered(let answer) = harness.service.lookUpDetail(id: "p1") else {
            Issue.record("a fresh document needs no waiting")
            return
        }
        #expect(answer.cache.result == .hit)
    }

    /// The waiting part does not look again: a document stored after the look-up is not seen,
    /// the load is joined or made as the look-up decided.
    @Test func aPendingDetailGoesOnFromItsOwnLookUp() async throws {
        guard case .pending(let pending) = harness.service.lookUpDetail(id: "p1") else {
            Issue.record("an empty cache cannot answer")
            return
        }
        _ = await harness.detail("p1")
        let answer = try await harness.service.detail(after: pending, requestID: "req-late")
        #expect(answer.cache.result == .miss)
        #expect(harness.catalog.productPort.calls.count == 2)
    }

    @Test func anInvalidIDIsNotLookedUpAndIsRefusedWhenFinished() async throws {
        guard case .pending(let pending) = harness.service.lookUpDetail(id: "bad id") else {
            Issue.record("an invalid id has no answer at once")
            return
        }
        await #expect(throws: ProductDetailsError.invalidID) { try await harness.service.detail(after: pending) }
    }
}
