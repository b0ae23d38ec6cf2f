@testable import App
import CatalogStub
import PureTestSupport
import Testing
import TestSupport

extension AppE2ETests.FleetMode {
    /// Issue 30, live: a page shows its suggested products' prices; once every replica received
    /// an invalidation, none shows an old price, from its own cache or the shared one.
    @Test(arguments: [FleetBackend.single, .cluster])
    func afterASuggestedProductChangesNoReplicaShowsItsOldPrice(backend: FleetBackend) async throws {
        try await withFleet(backend: backend) { fleet in
            let page = try await fleet.get(0, "/products/p8")
            let suggested = try #require(page.json()["suggested"]?[0]?["id"]?.string)
            for replica in 0..<3 {
                _ = try await fleet.get(replica, "/products/p8")
                #expect(try await fleet.get(replica, "/products/p8").isHit)
            }
            #expect(fleet.stub.changeProduct(suggested, ProductChange(priceInCents: 4242)) != nil)
            let deleted = try await fleet.delete(2, "/cache/products/\(suggested)")
            #expect(deleted.status == 204)
            #expect(deleted.header("X-Invalidation-Receivers") == "3")
            for replica in 0..<3 {
                try await fleet.eventuallyMetric(replica, "invalidations_received_total", ["scope": "product"]) { $0 >= 1 }
            }
            for probe in 0..<60 {
                let reply = try await fleet.get(probe % 3, "/products/p8")
                let shown = try reply.json()["suggested"]?.array?.first { $0["id"]?.string == suggested }
                guard reply.status == 200, shown?["priceInCents"]?.int == 4242 else {
                    Issue.record("probe \(probe) on replica \(probe % 3): \(reply.cacheStatus) \(reply.text.prefix(200))")
                    return
                }
            }
            #expect(try await fleet.metric(0, "dependent_pages_dropped_total") >= 1)
        }
    }

    /// Two hundred products changed, one bulk request: no page warm on any replica shows an old
    /// price, theirs or another product's whose suggestions list them.
    @Test(arguments: [FleetBackend.single, .cluster])
    func oneBulkInvalidationReachesEveryPageOnEveryReplica(backend: FleetBackend) async throws {
        try await withFleet(backend: backend) { fleet in
            let ids = (1...200).map { "p\($0)" }
            let pages = (1...300).map { "p\($0)" }
            for replica in 0..<3 {
                for id in pages { _ = try await fleet.get(replica, "/products/\(id)") }
            }
            for id in ids { #expect(fleet.stub.changeProduct(id, ProductChange(priceInCents: 777)) != nil) }
            let client = try await RawClient.connect(port: fleet.replicas[1].port)
            defer { client.close() }
            let body = #"{"products":["# + ids.map { "\"\($0)\"" }.joined(separator: ",") + "]}"
            let reply = try await client.request(
                "/cache/invalidations", method: "POST",
                headers: [("Authorization", "Bearer \(fleet.configuration.adminToken ?? "")"), ("Content-Type", "application/json")],
                body: body)
            #expect(reply.status == 204)
            #expect(reply.header("X-Invalidation-Receivers") == "3")
            for replica in 0..<3 {
                try await fleet.eventuallyMetric(replica, "invalidations_received_total", ["scope": "bulk"]) { $0 >= 1 }
            }
            let changed = Set(ids)
            for replica in 0..<3 {
                for id in pages {
                    let page = try await fleet.get(replica, "/products/\(id)").json()
                    let shown = [page["product"]].compactMap { $0 } + (page["suggested"]?.array ?? [])
                    for product in shown where changed.contains(product["id"]?.string ?? "") && product["priceInCents"]?.int != 777 {
                        Issue.record("replica \(replica), page \(id) shows \(product)")
                        return
                    }
                }
            }
            #expect(try await fleet.metric(1, "invalidations_total", ["scope": "bulk"]) == 1)
            #expect(try await fleet.metric(1, "invalidated_products_total") == 200)
        }
    }
}
