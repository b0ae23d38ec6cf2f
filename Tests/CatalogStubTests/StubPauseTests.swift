import CatalogStub
import PureTestSupport
import Testing
import TestSupport

/// `pause(route:)` / `resume()`: held requests are counted on arrival, released together, and a
/// held request whose client leaves counts as abandoned.
@Suite struct StubPauseTests {
    @Test func pausedRouteCountsOnArrivalAndAnswersAfterResume() async throws {
        try await withStub { stub, port in
            stub.pause(route: .product)
            let held = try await RawClient.connect(port: port)
            try await held.sendRequest("/products/p1")
            await eventually(.live) { stub.stats().product == 1 && stub.pausedRequests == 1 }

            // Other routes are not held.
            let other = try await RawClient.connect(port: port)
            let reviews = try await other.request("/products/p1/reviews")
            #expect(reviews.status == 200)
            #expect(stub.pausedRequests == 1)

            stub.resume()
            let product = try await held.readResponse()
            #expect(product.status == 200)
            #expect(product.body == stub.catalog.productJSON("p1"))
            #expect(stub.pausedRequests == 0)
            // Resumed means no longer paused: the next request passes at once.
            #expect(try await held.request("/products/p2").status == 200)
            #expect(stub.stats().product == 2)
            #expect(stub.stats().abandoned == 0)
        }
    }

    @Test func pauseAllHoldsEveryRouteAndResumeReleasesThemAll() async throws {
        try await withStub { stub, port in
            stub.pause(route: .all)
            var clients: [RawClient] = []
            for path in ["/products/p3", "/products/p3/reviews", "/products/p3/suggested"] {
                let client = try await RawClient.connect(port: port)
                try await client.sendRequest(path)
                clients.append(client)
            }
            await eventually(.live) { stub.pausedRequests == 3 }
            #expect(stub.stats() == StubStats(product: 1, reviews: 1, suggested: 1, abandoned: 0, openConnections: 3))
            stub.resume()
            for client in clients {
                #expect(try await client.readResponse().status == 200)
            }
        }
    }

    @Test func pausesAddUp() async throws {
        try await withStub { stub, port in
            stub.pause(route: .reviews)
            stub.pause(route: .suggested)
            let first = try await RawClient.connect(port: port)
            try await first.sendRequest("/products/p4/reviews")
            let second = try await RawClient.connect(port: port)
            try await second.sendRequest("/products/p4/suggested")
            await eventually(.live) { stub.pausedRequests == 2 }
            let free = try await RawClient.connect(port: port)
            #expect(try await free.request("/products/p4").status == 200)
            stub.resume()
            #expect(try await first.readResponse().status == 200)
            #expect(try await second.readResponse().status == 200)
        }
    }

    @Test func heldRequestWhoseClientLeavesCountsAsAbandoned() async throws {
        try await withStub { stub, port in
            stub.pause(route: .all)
            let client = try await RawClient.connect(port: port)
            try await client.sendRequest("/products/p5")
            await eventually(.live) { stub.pausedRequests == 1 }
            client.close()
            await eventually(.live) { stub.stats().abandoned == 1 && stub.pausedRequests == 0 }
            #expect(stub.stats().product == 1)
            stub.resume()
            #expect(stub.stats().abandoned == 1)
        }
    }
}
