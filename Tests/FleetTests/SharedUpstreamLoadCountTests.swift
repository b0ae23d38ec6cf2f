@testable import ProductDetails
import TestSupport
import Testing

/// In a fleet `loadStarted` also counts the loads the shared cache answered; `upstreamLoadStarted`
/// counts only those that call the upstreams, so upstream attempts per such load (retry
/// amplification) read as on a single node (`ProductDetailsTests/UpstreamLoadCountTests`).
@Suite("Loads that call the upstreams in a fleet", .timeLimit(.minutes(1)))
struct SharedUpstreamLoadCountTests {
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
