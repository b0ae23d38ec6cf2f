import CatalogStub
import Foundation
import PureTestSupport
import Testing
import TestSupport

/// The stub over real sockets: routes, 404s, stats, control routes.
@Suite struct StubServerTests {
    @Test func servesTheThreeResources() async throws {
        try await withStub { stub, port in
            let client = try await RawClient.connect(port: port)
            let product = try await client.request("/products/p1")
            #expect(product.status == 200)
            #expect(product.header("Content-Type") == "application/json")
            #expect(product.body == stub.catalog.productJSON("p1"))

            let reviews = try await client.request("/products/p1/reviews")
            #expect(reviews.status == 200)
            #expect(reviews.header("Content-Type") == "application/json")
            #expect(reviews.body == stub.catalog.reviewsJSON("p1"))
            #expect((try reviews.json() as? [Any]) != nil)

            let suggested = try await client.request("/products/p1/suggested")
            #expect(suggested.status == 200)
            #expect(suggested.body == stub.catalog.suggestionsJSON("p1"))
            #expect((try suggested.json() as? [[String: Any]])?.count == stub.catalog.suggestions("p1")?.count)
        }
    }

    @Test func smallCatalogFromConfiguration() async throws {
        try await withStub(configure: { $0.catalogSize = 3; $0.seed = 1 }) { stub, port in
            #expect(stub.catalog == Catalog(size: 3, seed: 1))
            let client = try await RawClient.connect(port: port)
            #expect(try await client.request("/products/p3").status == 200)
            #expect(try await client.request("/products/p4").status == 404)
        }
    }

    @Test(arguments: ["p0", "p10001", "x", "p01"])
    func unknownIdsAre404Problems(id: String) async throws {
        try await withStub { _, port in
            let client = try await RawClient.connect(port: port)
            for path in ["/products/\(id)", "/products/\(id)/reviews", "/products/\(id)/suggested"] {
                let response = try await client.request(path)
                #expect(response.status == 404)
                #expect(response.header("Content-Type") == "application/problem+json")
                let problem = try #require(try response.json() as? [String: Any])
                #expect(problem["status"] as? Int == 404)
                #expect((problem["detail"] as? String)?.contains(id) == true)
            }
        }
    }

    @Test func statsCountPerRouteAndReset() async throws {
        try await withStub(loops: 2) { stub, port in
            let client = try await RawClient.connect(port: port)
            for _ in 0..<3 { _ = try await client.request("/products/p2") }
            for _ in 0..<2 { _ = try await client.request("/products/p2/reviews") }
            _ = try await client.request("/products/nope/suggested")
            #expect(stub.stats() == StubStats(product: 3, reviews: 2, suggested: 1, abandoned: 0, openConnections: 1))

            let stats = try await client.request("/stats")
            #expect(stats.status == 200)
            #expect(stats.header("Content-Type") == "application/json")
            let document = try #require(try stats.json() as? [String: Any])
            let requests = try #require(document["requests"] as? [String: Int])
            #expect(requests == ["product": 3, "reviews": 2, "suggested": 1])
            #expect(document["abandoned"] as? Int == 0)
            #expect(document["abandonedProduct"] as? Int == 0)
            #expect(document["slowFirstCalls"] as? Int == 0)
            #expect(document["openConnections"] as? Int == 1)

            #expect(try await client.request("/stats", method: "DELETE").status == 204)
            #expect(stub.stats() == StubStats(openConnections: 1))
            _ = try await client.request("/products/p2/suggested")
            stub.resetStats()
            #expect(stub.stats().suggested == 0)
        }
    }

    @Test func openConnectionsFollowsClients() async throws {
        try await withStub(loops: 2) { stub, port in
            let first = try await RawClient.connect(port: port)
            let second = try await RawClient.connect(port: port)
            _ = try await first.request("/healthz")
            _ = try await second.request("/healthz")
            #expect(stub.stats().openConnections == 2)
            second.close()
            await eventually(.live) { stub.stats().openConnections == 1 }
        }
    }

    @Test func healthz() async throws {
        try await withStub { _, port in
            let client = try await RawClient.connect(port: port)
            let response = try await client.request("/healthz")
            #expect(response.status == 200)
            #expect(response.text == #"{"status":"ok"}"#)
        }
    }

    @Test func controlRouteScriptsAndClearsFaults() async throws {
        try await withStub { stub, port in
            let client = try await RawClient.connect(port: port)
            let put = try await client.request("/control/faults/reviews", method: "PUT", body: #"{"errorRate":1,"errorStatus":500,"times":2}"#)
            #expect(put.status == 204)
            #expect(try await client.request("/products/p1/reviews").status == 500)
            #expect(try await client.request("/products/p1").status == 200)
            #expect(try await client.request("/products/p1/reviews").status == 500)
            #expect(try await client.request("/products/p1/reviews").status == 200)

            #expect(try await client.request("/control/faults/all", method: "PUT", body: #"{"errorRate":1.0}"#).status == 204)
            #expect(try await client.request("/products/p1/suggested").status == 503)
            #expect(try await client.request("/control/faults", method: "DELETE").status == 204)
            #expect(try await client.request("/products/p1/suggested").status == 200)
            #expect(stub.stats().reviews == 3)
        }
    }

    @Test func controlRouteRefusesBadRequests() async throws {
        try await withStub { _, port in
            let client = try await RawClient.connect(port: port)
            let unknownRoute = try await client.request("/control/faults/orders", method: "PUT", body: "{}")
            #expect(unknownRoute.status == 404)
            #expect(unknownRoute.header("Content-Type") == "application/problem+json")
            let typo = try await client.request("/control/faults/all", method: "PUT", body: #"{"errorrate":1}"#)
            #expect(typo.status == 400)
            #expect(typo.text.contains("errorrate"))
            let outOfRange = try await client.request("/control/faults/all", method: "PUT", body: #"{"errorRate":2}"#)
            #expect(outOfRange.status == 400)
            #expect(try await client.request("/control/faults/all", method: "PUT", body: "nope").status == 400)
            #expect(try await client.request("/products/p1").status == 200)
        }
    }
}
