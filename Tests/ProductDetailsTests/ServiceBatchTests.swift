import TestSupport
import Testing
@testable import ProductDetails

struct ServiceBatchTests {
    func details(_ harness: ServiceHarness, _ ids: [String]) async -> Result<[Result<DetailAnswer, ProductDetailsError>], ProductDetailsError> {
        do throws(ProductDetailsError) {
            return .success(try await harness.service.details(ids: ids, requestID: "batch"))
        } catch {
            return .failure(error)
        }
    }

    @Test func answersKeepRequestOrderAndARepeatedIDLoadsOnce() async throws {
        let harness = ServiceHarness()
        let ids = ["b", "a", "b", "bad id", "c", "a"]
        let items = try await details(harness, ids).get()
        #expect(items.count == 6)
        for (id, item) in zip(ids, items) where id != "bad id" {
            #expect(item.answer?.document.body == ServiceHarness.expectedBody(id))
        }
        #expect(items[3] == .failure(.invalidID))
        let productCalls = harness.catalog.productPort.calls.map(\.id)
        #expect(productCalls.sorted() == ["a", "b", "c"])
    }

    @Test func atMostBatchParallelismLoadsRunAtOnce() async throws {
        let harness = ServiceHarness(ServiceSettings(batchParallelism: 3))
        let gate = harness.catalog.productPort.hold()
        let ids = (0..<12).map { "id\($0)" }
        let batch = Task { await details(harness, ids) }
        await gate.waitForWaiters(3)
        #expect(harness.catalog.productPort.running == 3)
        harness.catalog.productPort.release()
        let items = try await batch.value.get()
        #expect(items.count == 12)
        #expect(items.allSatisfy { $0.answer?.document.status == 200 })
        #expect(harness.catalog.productPort.maxRunning == 3)
        #expect(harness.catalog.productPort.callCount == 12)
    }

    @Test func moreThanMaxBatchIDsIs400() async throws {
        let harness = ServiceHarness()
        let result = await details(harness, (0..<101).map { "id\($0)" })
        guard case .failure(let error) = result else { Issue.record("expected 400"); return }
        #expect(error.status == 400)
        #expect(harness.catalog.productPort.callCount == 0)
        #expect(try await details(harness, (0..<100).map { "id\($0)" }).get().count == 100)
    }

    @Test func aBatchSharesTheCacheWithSingleRequests() async throws {
        let harness = ServiceHarness()
        _ = await harness.detail("a")
        let items = try await details(harness, ["a", "b"]).get()
        #expect(items[0].answer?.cache.result == .hit)
        #expect(items[1].answer?.cache.result == .miss)
        #expect(harness.catalog.productPort.callCount == 2)
    }

    @Test func aPerItemFailureDoesNotFailTheBatch() async throws {
        let harness = ServiceHarness()
        harness.catalog.productPort.respond { id, _ in id == "gone" ? .failure(.notFound) : .success(FakeCatalog.product(id)) }
        let items = try await details(harness, ["ok", "gone"]).get()
        #expect(items[0].answer?.document.status == 200)
        #expect(items[1].answer?.document.status == 404)
    }
}
