import Foundation
import Testing
@testable import ProductDetails

struct DetailEncoderTests {
    private let detail = ProductDetail(
        product: Product(id: "p1", name: "Lamp", priceInCents: 1999, currency: "EUR"),
        reviews: [Review(id: "r1", rating: 5, text: "ok")],
        suggested: [Product(id: "p2", name: "Bulb", priceInCents: -5, currency: "EUR")]
    )

    @Test func fieldOrderIsExactAndMissingIsOmittedWhenEmpty() {
        let json = String(decoding: DetailEncoder.encode(detail), as: UTF8.self)
        #expect(json == #"{"product":{"id":"p1","name":"Lamp","priceInCents":1999,"currency":"EUR"},"reviews":[{"id":"r1","rating":5,"text":"ok"}],"suggested":[{"id":"p2","name":"Bulb","priceInCents":-5,"currency":"EUR"}]}"#)
    }

    @Test func missingPartsAreListedLast() {
        var degraded = detail
        degraded.reviews = []
        degraded.suggested = []
        degraded.missing = [.reviews, .suggested]
        let json = String(decoding: DetailEncoder.encode(degraded), as: UTF8.self)
        #expect(json.hasSuffix(#""reviews":[],"suggested":[],"missing":["reviews","suggested"]}"#))
    }

    static let nastyStrings = [
        "plain",
        "",
        "quote \" and backslash \\ and slash /",
        "newline\n tab\t return\r backspace\u{08} formfeed\u{0C}",
        "nul \u{00} unit separator \u{1F} delete \u{7F}",
        "unicode: é 漢字 🛒 \u{2028}\u{2029}",
        "\\u0041 looks escaped but is not",
        "</script><script>alert(1)</script>",
    ]

    @Test(arguments: nastyStrings)
    func foundationParsesNastyStringsBackToEqualValues(text: String) throws {
        let nasty = ProductDetail(
            product: Product(id: text, name: text, priceInCents: Int.max, currency: text),
            reviews: [Review(id: text, rating: Int.min, text: text)],
            suggested: [Product(id: "x", name: text, priceInCents: 0, currency: "EUR")],
            missing: [.reviews]
        )
        let bytes = DetailEncoder.encode(nasty)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        let product = try #require(parsed["product"] as? [String: Any])
        #expect(product["id"] as? String == text)
        #expect(product["name"] as? String == text)
        #expect((product["priceInCents"] as? NSNumber)?.int64Value == Int64(Int.max))
        let review = try #require((parsed["reviews"] as? [[String: Any]])?.first)
        #expect(review["text"] as? String == text)
        #expect((review["rating"] as? NSNumber)?.int64Value == Int64(Int.min))
        #expect(parsed["missing"] as? [String] == ["reviews"])
        // And our own model decodes it back identically.
        #expect(try JSONDecoder().decode(ProductDetail.self, from: Data(bytes)) == nasty)
    }

    @Test func controlCharactersAreEscapedAsUnicodeEscapes() {
        var writer = JSONBytesWriter()
        writer.string("a\u{01}\n\u{1F}\"\\")
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #""a\u0001\u000a\u001f\"\\""#)
    }

    @Test func problemJSONIsValidAndCarriesStatus() throws {
        let error = ProductDetailsError.notFound(id: "p\"1")
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(error.problemJSON)) as? [String: Any])
        #expect(parsed["status"] as? Int == 404)
        #expect(parsed["title"] as? String == "Not Found")
        #expect(parsed["type"] as? String == "about:blank")
        #expect(parsed["detail"] as? String == "No product has the id p\"1.")
    }

    @Test func entityTagIsQuotedSixteenHexOfFNV1a() {
        #expect(EntityTag.fnv1a64([]) == 0xcbf2_9ce4_8422_2325)
        #expect(EntityTag.fnv1a64(Array("a".utf8)) == 0xaf63_dc4c_8601_ec8c)
        #expect(EntityTag.strong(for: Array("a".utf8)) == "\"af63dc4c8601ec8c\"")
        #expect(EntityTag.strong(for: []).count == 18)
    }
}
