import PureTestSupport
import TestSupport
import Testing
@testable import ProductDetails
import Timekeeping

/// The service when its upstreams have no room: loads wait briefly or are refused at once with
/// 503 and `Retry-After`, never queue at the upstream, and never open a breaker.
@Suite("Admission in the service")
struct ServiceAdmissionTests {
    /// One call in flight per upstream, fixed: the second load has to wait.
    static func settings() -> ServiceSettings {
        var settings = ServiceSettings()
        settings.hedging = nil
        settings.admission = AdmissionMachine.Policy(limit: .init(floor: 1, ceiling: 1, initial: 1))
        return settings
    }

    typealias Answer = Task<Result<DetailAnswer, ProductDetailsError>, Never>

    /// p1's load holds the only room, its product call held at the gate; p2's load waits.
    func holdP1AndQueueP2(_ harness: ServiceHarness) async -> (CancellableGate, first: Answer, second: Answer) {
        let products = harness.catalog.productPort.hold()
        let first = Task { await harness.detail("p1") }
        await products.waitForWaiters()
        let second = Task { await harness.detail("p2") }
        // The queue's timer is armed just after the load queued: a test that moves time first
        // would leave it armed past the new time, and the load waiting for ever.
        await eventually { harness.service.admission?.queued == 1 && harness.time.scheduledCount == 1 }
        return (products, first, second)
    }

    @Test func aLoadWithNoRoomWaitsThenIsRefusedWith503AndCallsNoUpstream() async throws {
        let harness = ServiceHarness(Self.settings())
        let (products, first, second) = await holdP1AndQueueP2(harness)
        harness.time.advance(by: .milliseconds(101))
        let refused = await second.value
        guard case .failure(let error) = refused else {
            Issue.record("expected a refusal, got \(refused)")
            return
        }
        #expect(error.status == 503 && error.retryAfterSeconds == 1 && error.isShed)
        #expect(error.cause == AdmissionRefusal.queueTimeout.cause)
        #expect(harness.catalog.productPort.calls.map(\.id) == ["p1"], "p2 never reached an upstream")
        #expect(harness.events.all.contains("shed queue_timeout"))
        products.open()
        #expect(await first.value.answer?.document.body == ServiceHarness.expectedBody("p1"))
        for upstream in Upstream.allCases { #expect(harness.service.breaker(for: upstream).state == .closed) }
        #expect(harness.service.admission?.limit(of: .products).inFlight == 0, "every room given back")
    }

    @Test func aWaitingLoadGoesAsSoonAsTheLoadBeforeItEnds() async throws {
        let harness = ServiceHarness(Self.settings())
        let (products, first, second) = await holdP1AndQueueP2(harness)
        products.open()
        #expect(await first.value.answer != nil)
        #expect(await second.value.answer?.document.body == ServiceHarness.expectedBody("p2"))
        #expect(harness.events.all.filter { $0.hasPrefix("shed") }.isEmpty)
    }

    @Test func aStalePageStandsInForARefusedLoad() async throws {
        var settings = Self.settings()
        settings.ttl = .seconds(1)
        settings.staleWhileRevalidate = .zero
        let harness = ServiceHarness(settings)
        #expect(await harness.detail("p2").answer != nil)
        harness.time.advance(by: .seconds(2))
        let (products, first, second) = await holdP1AndQueueP2(harness)
        harness.time.advance(by: .milliseconds(101))
        let stale = try #require(await second.value.answer)
        #expect(stale.cache.result == .stale && stale.cache.servedStaleBecause == "shed")
        products.open()
        _ = await first.value
    }

    @Test func aRetryIsNotSentWhileAnotherLoadWaitsForTheRoom() async throws {
        let harness = ServiceHarness(Self.settings())
        // p1's first product attempt fails with a retryable 503 once p2 waits for its room.
        harness.catalog.productPort.respond { id, number in
            id == "p1" && number == 1 ? .failure(.status(503, retryAfter: nil)) : .success(FakeCatalog.product(id))
        }
        let (products, first, second) = await holdP1AndQueueP2(harness)
        products.open()
        let failed = await first.value
        #expect((try? failed.get()) == nil, "p1's retry was not sent: its last failure answers")
        #expect(harness.events.all.contains("retryShed products"))
        #expect(harness.catalog.productPort.calls.filter { $0.id == "p1" }.count == 1)
        #expect(await second.value.answer != nil, "the waiting page got the room instead")
    }

    @Test func theRequestOfARefusedLoadHearsItCalledNoUpstream() async throws {
        var settings = Self.settings()
        settings.admission?.queue.capacity = 1
        let harness = ServiceHarness(settings)
        let (products, first, second) = await holdP1AndQueueP2(harness)
        let observer = CountingObserver()
        // The queue is full: p3 is refused at once.
        #expect(await harness.detail("p3", observer: observer).answer == nil)
        #expect(observer.loads == 1 && observer.sheds == 1)
        #expect(harness.events.all.contains("shed queue_full"))
        products.open()
        _ = (await first.value, await second.value)
    }

    /// A batch's items are loads like any other: one that finds no room is refused in its place,
    /// and the others are answered in order.
    @Test func aBatchDrawsOnTheSameRoomAndKeepsItsOrder() async throws {
        let harness = ServiceHarness(Self.settings())
        let products = harness.catalog.productPort.hold()
        let batch = Task { try await harness.service.details(ids: ["p1", "p2", "p1"], requestID: "batch") }
        await products.waitForWaiters()
        await eventually { harness.service.admission?.queued == 1 && harness.time.scheduledCount == 1 }
        harness.time.advance(by: .milliseconds(101))
        await eventually { harness.events.all.contains("shed queue_timeout") }
        products.open()
        let items = try await batch.value
        #expect(items.count == 3)
        #expect((try? items[0].get())?.document.body == ServiceHarness.expectedBody("p1"))
        #expect((try? items[2].get())?.document.body == ServiceHarness.expectedBody("p1"))
        guard case .failure(let refused) = items[1] else {
            Issue.record("p2 was not refused: \(items[1])")
            return
        }
        #expect(refused.status == 503 && refused.isShed)
    }

    /// A hung optional upstream fills its room with calls that will time out: once its part came
    /// after the grace, pages neither wait for room there nor are refused for it; they go without
    /// the part at once.
    @Test func anOptionalUpstreamWhosePartCameLateDoesNotHoldAdmission() async throws {
        let harness = ServiceHarness(Self.settings())
        let reviews = harness.catalog.reviewPort.hold()
        let first = Task { await harness.detail("p1") }
        await reviews.waitForWaiters()
        await eventually { harness.time.scheduledCount == 1 }
        harness.time.advance(by: .milliseconds(100))
        #expect(await first.value.answer?.document.missing == [.reviews], "answered when the grace ended")
        #expect(harness.service.admission?.limit(of: .reviews).inFlight == 1, "the hung call still holds its room")
        let second = try #require(await harness.detail("p2").answer)
        #expect(second.document.missing == [.reviews])
        #expect(second.cache.withoutWaiting == .shed)
        #expect(harness.events.all.contains("omitted reviews shed"))
        #expect(harness.catalog.reviewPort.callCount == 1, "p2's reviews were not asked")
        #expect(harness.service.admission?.queued == 0)
        reviews.open()
    }

    @Test func aBackgroundRefreshNeverWaitsForRoom() async throws {
        var settings = Self.settings()
        settings.ttl = .seconds(1)
        let harness = ServiceHarness(settings)
        #expect(await harness.detail("p2").answer != nil)
        harness.time.advance(by: .seconds(2))
        let products = harness.catalog.productPort.hold()
        let first = Task { await harness.detail("p1") }
        await products.waitForWaiters()
        // Stale within stale-while-revalidate: answered at once; its refresh finds no room.
        let stale = await harness.detail("p2")
        #expect(stale.answer?.cache.result == .stale)
        await eventually { harness.events.all.contains("shed background") }
        #expect(harness.service.admission?.queued == 0)
        products.open()
        _ = await first.value
    }
}
