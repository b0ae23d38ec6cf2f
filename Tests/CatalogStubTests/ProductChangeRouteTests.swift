import Testing
@testable import CatalogStub
import TestSupport

/// `PUT|DELETE /control/products/{id}` and `DELETE /control/products` over real sockets.
@Suite struct ProductChangeRouteTests {
    static func small(_ configuration: inout StubConfiguration) {
        configuration.catalogSize = 40
        configuration.seed = 9
    }

    /// A product in at least two suggestion lists, with those lists' owners.
    static func suggestedProduct(in catalog: Catalog) throws -> (id: String, index: Int, owners: [String]) {
        for index in 1...catalog.size {
            let owners = (1...catalog.size).filter { catalog.suggestionIndices(at: $0).contains(index) }
            if owners.count >= 2 { return (Catalog.id(ofIndex: index), index, owners.map(Catalog.id(ofIndex:))) }
        }
        throw TestFailure("no product is suggested twice")
    }

    struct TestFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test func aChangeShowsInItsAnswerAndEverySuggestionListUntilUndone() async throws {
        try await withStub(loops: 2, configure: Self.small) { stub, port in
            let catalog = stub.catalog
            let (s, index, owners) = try Self.suggestedProduct(in: catalog)
            let changed = ProductChange(name: "Teal Chair", priceInCents: 1).applied(to: catalog.product(at: index))
            let client = try await RawClient.connect(port: port)

            let put = try await client.request("/control/products/\(s)", method: "PUT", body: #"{"priceInCents":1,"name":"Teal Chair"}"#)
            #expect(put.status == 200)
            #expect(put.header("Content-Type") == "application/json")
            #expect(put.body == Catalog.json(of: changed))
            #expect(try await client.request("/products/\(s)").body == Catalog.json(of: changed))
            for owner in 1...catalog.size {
                let id = Catalog.id(ofIndex: owner)
                let expected = catalog.suggestionIndices(at: owner).map { $0 == index ? changed : catalog.product(at: $0) }
                #expect(try await client.request("/products/\(id)/suggested").body == Catalog.json(of: expected))
                if owner != index { #expect(try await client.request("/products/\(id)").body == catalog.productJSON(id)) }
            }
            #expect(owners.count >= 2)

            // Clearing faults leaves changes; undoing one product's change restores both answers.
            #expect(try await client.request("/control/faults", method: "DELETE").status == 204)
            #expect(try await client.request("/products/\(s)").body == Catalog.json(of: changed))
            #expect(try await client.request("/control/products/\(s)", method: "DELETE").status == 204)
            #expect(try await client.request("/control/products/\(s)", method: "DELETE").status == 204)
            #expect(try await client.request("/products/\(s)").body == catalog.productJSON(s))
            #expect(try await client.request("/products/\(owners[0])/suggested").body == catalog.suggestionsJSON(owners[0]))
        }
    }

    @Test func deletingAllUndoesEveryChange() async throws {
        try await withStub(configure: Self.small) { stub, port in
            let client = try await RawClient.connect(port: port)
            #expect(try await client.request("/control/products/p1", method: "PUT", body: #"{"priceInCents":7}"#).status == 200)
            #expect(try await client.request("/control/products/p2", method: "PUT", body: #"{"name":"Mug"}"#).status == 200)
            // A second PUT replaces the first: the name left out is the catalog's again.
            let again = try await client.request("/control/products/p2", method: "PUT", body: #"{"priceInCents":8}"#)
            let p2 = ProductChange(priceInCents: 8).applied(to: stub.catalog.product(at: 2))
            #expect(again.body == Catalog.json(of: p2))
            #expect(try await client.request("/products/p2").body == Catalog.json(of: p2))
            #expect(try await client.request("/control/products", method: "DELETE").status == 204)
            #expect(try await client.request("/products/p1").body == stub.catalog.productJSON("p1"))
            #expect(try await client.request("/products/p2").body == stub.catalog.productJSON("p2"))
        }
    }

    @Test func unknownProductsAre404AndBadBodies400Problems() async throws {
        try await withStub(configure: Self.small) { stub, port in
            let client = try await RawClient.connect(port: port)
            for id in ["p41", "p0", "x", "p01"] {
                let put = try await client.request("/control/products/\(id)", method: "PUT", body: #"{"priceInCents":7}"#)
                #expect(put.status == 404)
                #expect(put.header("Content-Type") == "application/problem+json")
                #expect(put.text.contains(id))
                #expect(try await client.request("/control/products/\(id)", method: "DELETE").status == 404)
            }
            for body in ["", "{}", #"{"price":7}"#, #"{"priceInCents":-7}"#, #"{"name":""}"#] {
                let put = try await client.request("/control/products/p1", method: "PUT", body: body)
                #expect(put.status == 400)
                #expect(put.header("Content-Type") == "application/problem+json")
            }
            #expect(try await client.request("/control/products/p1", method: "PUT", body: #"{"price":7}"#).text.contains(#"\"price\""#))
            #expect(try await client.request("/products/p1").body == stub.catalog.productJSON("p1"))
        }
    }

    @Test func theStubsOwnAPIChangesAndUndoes() async throws {
        try await withStub(configure: Self.small) { stub, port in
            let client = try await RawClient.connect(port: port)
            let changed = try #require(stub.changeProduct("p3", ProductChange(priceInCents: 0)))
            #expect(changed == ProductChange(priceInCents: 0).applied(to: stub.catalog.product(at: 3)))
            #expect(stub.changeProduct("p41", ProductChange(priceInCents: 0)) == nil)
            #expect(try await client.request("/products/p3").body == Catalog.json(of: changed))
            stub.undoProductChanges()
            #expect(try await client.request("/products/p3").body == stub.catalog.productJSON("p3"))
        }
    }
}
