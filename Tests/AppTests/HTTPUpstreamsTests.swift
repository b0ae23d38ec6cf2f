@testable import App
import CatalogStub
import EventLoop
import HTTPClient
import ProductDetails
import PureTestSupport
import Testing
import TestSupport

/// The upstream adapter over the stub, which serves all three upstreams from one origin.
@Suite struct HTTPUpstreamsTests {
    /// Gray failure at reviews with one connection per upstream and loop: the product call still
    /// goes straight out, and once the reviews breaker opens, the reviews call queued behind the
    /// hung one fails as `circuitOpen` at once while the hung one goes on.
    @Test func eachUpstreamHasItsOwnPoolAndADroppedCallIsCircuitOpen() async throws {
        let stubGroup = try EventLoopGroup(loopCount: 1)
        defer { stubGroup.shutdown() }
        let stub = loopbackStub(group: stubGroup)
        let origin = Origin(host: "127.0.0.1", port: try await stub.start())
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        var configuration = HTTPClientConfiguration()
        configuration.maxConnectionsPerPool = 1
        let client = HTTPClient(group: group, configuration: configuration)
        let upstreams = HTTPUpstreams(client: client, products: origin, reviews: origin, suggestions: origin)
        let call = UpstreamCall(timeout: .seconds(60), requestID: "")

        stub.pause(route: .reviews)
        let hung = Task { try await upstreams.reviews(productID: "p1", call: call) }
        await eventually(.live) { stub.pausedRequests == 1 }
        let queued = Task { try await upstreams.reviews(productID: "p2", call: call) }
        await eventually(.live) { client.statistics.waitingRequests == 1 }
        #expect(try await upstreams.product(id: "p3", call: call).id == "p3")

        client.failQueued(pool: Upstream.reviews.rawValue)
        await #expect(throws: UpstreamFailure.circuitOpen) { _ = try await queued.value }
        #expect(stub.stats().reviews == 1, "the dropped call was never sent")
        stub.resume()
        #expect(try await hung.value.map(\.id) == stub.catalog.reviews("p1")?.map(\.id))
        await client.shutdown()
        await stub.shutdown()
    }
}
