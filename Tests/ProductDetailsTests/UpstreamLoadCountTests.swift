@testable import ProductDetails
import TestSupport
import Testing
import Timekeeping

/// `upstreamLoadStarted` counts the loads that call the upstreams, so upstream attempts per such
/// load (retry amplification) read 1 without retries in a fleet as on a single node, where
/// `loadStarted` also counts the loads the shared cache answered. The fleet's side is
/// `FleetTests/SharedUpstreamLoadCountTests`.
@Suite("Loads that call the upstreams", .timeLimit(.minutes(1)))
struct UpstreamLoadCountTests {
    @Test func aSingleNodeLoadCallsTheUpstreams() async throws {
        let harness = ServiceHarness()
        _ = try await harness.service.detail(id: "p1", requestID: "r1")
        _ = try await harness.service.detail(id: "p2", requestID: "r2")
        #expect(harness.events.count("loadStarted") == 2)
        #expect(harness.events.count("upstreamLoad") == 2)
    }
}
