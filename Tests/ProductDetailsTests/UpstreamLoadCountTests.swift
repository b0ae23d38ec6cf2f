@testable import ProductDetails
import TestSupport
import Testing
import Timekeeping

/// `upstreamLoadStarted` counts the loads that call the upstreams, so upstream attempts per such
/// load (retry amplification) read 1 without retries in a fleet as on a single node, where
/// `loadStarted` also counts the loads the shared cache answered.
@Suite("Loads that call the upstreams", .timeLimit(.minutes(1)))
struct UpstreamLoadCountTests {
    @Test func aSingleNodeLoadCallsTheUpstreams() async throws {
        let harness = ServiceHarness()
        _ = try await harness.service.detail(id: "p1", requestID: "r1")
        _ = try await harness.service.detail(id: "p2", requestID: "r2")
        #expect(harness.events.count("loadStarted") == 2)
        #expect(harness.events.count("upstreamLoad") == 2)
    }

    @Test func aLoadTheSharedCacheAnsweredCallsNoUpstream() async throws {
        let fleet = Replicas()
        _ = try await fleet.replica().detail(id: "p1")
        let fromShared = try await fleet.replica().detail(id: "p1")
        #expect(fromShared.cache.shared?.result == .hit)
        #expect(fleet.events.count("loadStarted") == 2)
        #expect(fleet.events.count("upstreamLoad") == 1)
        #expect(fleet.catalog.productPort.callCount == 1)
        let attempts = fleet.events.all.filter { $0.hasPrefix("attempt ") }.count
        #expect(attempts == 3 * fleet.events.count("upstreamLoad"), "\(fleet.events.all)")
    }

    /// `no-cache` skips the shared cache and loads from the upstreams: counted.
    @Test func aNoCacheLoadInAFleetCallsTheUpstreams() async throws {
        let fleet = Replicas()
        _ = try await fleet.replica().detail(id: "p1")
        _ = try await fleet.replica().detail(id: "p1", noCache: true)
        #expect(fleet.events.count("upstreamLoad") == 2)
        #expect(fleet.catalog.productPort.callCount == 2)
    }
}
