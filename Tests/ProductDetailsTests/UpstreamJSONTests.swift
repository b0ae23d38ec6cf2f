import Testing
@testable import ProductDetails

struct UpstreamJSONTests {
    @Test func decodesTheThreeUpstreamShapes() throws {
        let product = try UpstreamJSON.product(from: #"{"id":"p1","name":"Lamp","priceInCents":1999,"currency":"EUR"}"#.bytes)
        #expect(product == Product(id: "p1", name: "Lamp", priceInCents: 1999, currency: "EUR"))
        let reviews = try UpstreamJSON.reviews(from: #"[{"id":"r1","rating":4,"text":"ok"}]"#.bytes)
        #expect(reviews == [Review(id: "r1", rating: 4, text: "ok")])
        let products = try UpstreamJSON.products(from: #"[{"id":"p2","name":"Bulb","priceInCents":5,"currency":"USD"}]"#.bytes)
        #expect(products.map(\.id) == ["p2"])
        #expect(try UpstreamJSON.reviews(from: "[]".bytes).isEmpty)
    }

    @Test(arguments: [
        "",
        "{",
        "null",
        #"{"id":"p1","name":"Lamp","priceInCents":19.99,"currency":"EUR"}"#,
        #"{"id":"p1","name":"Lamp","priceInCents":"1999","currency":"EUR"}"#,
        #"{"id":"p1","name":"Lamp","currency":"EUR"}"#,
        #"{"id":null,"name":"Lamp","priceInCents":1,"currency":"EUR"}"#,
        #"[{"id":"p1","name":"Lamp","priceInCents":1,"currency":"EUR"}]"#,
    ])
    func malformedProductBodiesAreMalformedBody(body: String) {
        #expect {
            try UpstreamJSON.product(from: body.bytes)
        } throws: { error in
            if case UpstreamFailure.malformedBody = error { return true }
            return false
        }
    }

    @Test func wrongTypeInAListNamesTheField() {
        do {
            _ = try UpstreamJSON.reviews(from: #"[{"id":"r1","rating":"five","text":"ok"}]"#.bytes)
            Issue.record("expected a failure")
        } catch {
            #expect(error == .malformedBody("wrong type at 0.rating"))
        }
    }
}

extension String {
    var bytes: [UInt8] { Array(utf8) }
}
