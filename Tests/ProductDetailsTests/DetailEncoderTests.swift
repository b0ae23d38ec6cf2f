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

    @Test func problemJSONIsValidAndCarriesStatus() throws {
        let error = ProductDetailsError.notFound(id: "p\"1")
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(error.problemJSON)) as? [String: Any])
        #expect(parsed["status"] as? Int == 404)
        #expect(parsed["title"] as? String == "Not Found")
        #expect(parsed["type"] as? String == "about:blank")
        #expect(parsed["detail"] as? String == "No product has the id p\"1.")
    }

    /// The top 60 bits of the XXH64, six a character in URL-safe base64: for "" (0xef46db3751d8e999)
    /// 111011 110100 011011 011011 001101 110101 000111 011000 111010 011001 (then 1001, dropped).
    @Test func entityTagIsQuotedTenBase64CharactersOfTheBodysXXH64() {
        #expect(EntityTag.strong(for: []) == "\"70bbN1HY6Z\"")
        #expect(EntityTag.strong(for: Array("abc".utf8)).utf8.count == 12)
        #expect(EntityTag.strong(for: Array("a".utf8)) != EntityTag.strong(for: Array("b".utf8)))
        #expect(EntityTag.gzipVariant(of: EntityTag.strong(for: [])) == "\"70bbN1HY6Z-gz\"")
        #expect(EntityTag.gzipVariant(of: "\"x\"") == "\"x-gz\"")
    }

    /// Vectors from the Python `xxhash` package (an independent implementation), over lengths
    /// that reach every path: the 32-byte stripes, 8- and 4-byte words and single bytes.
    @Test(arguments: [
        (0, 0xef46_db37_51d8_e999), (1, 0x1f25_c8d0_bc1f_4bb6), (3, 0x31d2_363f_52e5_64c9),
        (4, 0x9bb6_4b7d_66ee_9fda), (7, 0x9a7b_1499_59ce_60d8), (8, 0xdab9_9d95_c6f9_0092),
        (11, 0x7a52_cc94_57cf_1a1f), (31, 0xa2aa_5f33_cc4a_6119), (32, 0x23c3_c17e_f790_fd97),
        (33, 0x50a7_cfc7_ba58_8784), (63, 0x5e3e_54b4_31c7_493c), (64, 0x0eb6_4b3e_f6ee_b01f),
        (100, 0xa61f_8d4c_170f_e531),
    ] as [(Int, UInt64)])
    func xxHash64MatchesTheReferenceVectors(length: Int, expected: UInt64) {
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) }
        #expect(bytes.withUnsafeBytes(XXHash64.hash) == expected)
    }
}
