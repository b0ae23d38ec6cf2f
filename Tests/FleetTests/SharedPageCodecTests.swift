@testable import Fleet
import ProductDetails
import Testing

@Suite("Shared page format")
struct SharedPageCodecTests {
    @Test(arguments: [
        SharedPage(document: CachedDocument(status: 200, body: Array("{\"a\":1}\n\r\n".utf8)), ttl: .seconds(60), staleIfError: .seconds(300), staleWhileRevalidate: .seconds(30)),
        SharedPage(document: CachedDocument(status: 200, body: [], missing: [.reviews, .suggested]), ttl: .milliseconds(1500)),
        SharedPage(document: CachedDocument(status: 404, body: Array("{}".utf8)), ttl: .seconds(5)),
        SharedPage(
            document: CachedDocument(status: 200, body: Array("{}".utf8), shownProducts: ["a", "s-1", "S_2"]), ttl: .seconds(60),
            stamp: 1_764_912_345_678_901),
    ])
    func roundTrips(page: SharedPage) throws {
        let decoded = try #require(SharedPageCodec.decode(SharedPageCodec.encode(page, storedAt: Self.storedAt)))
        #expect(decoded.page == page)
        #expect(decoded.storedAt == Self.storedAt)
    }

    /// When the page was stored, to the millisecond (Unix time).
    static let storedAt = Duration.milliseconds(1_765_000_000_123)

    /// The gzip variant travels with the page, after its body, so a reader has both forms.
    @Test func theGzipVariantTravelsWithThePage() throws {
        let member: [UInt8] = [0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3]
        let document = CachedDocument(status: 200, body: Array("{\"id\":\"p1\"}".utf8), shownProducts: ["p1"]).withGzip(member)
        let page = SharedPage(document: document, ttl: .seconds(60), stamp: 7)
        let bytes = SharedPageCodec.encode(page, storedAt: Self.storedAt)
        #expect(bytes == Array("PD4 200 1765000000123 60000 0 0 - 7 p1 13\n{\"id\":\"p1\"}".utf8) + member)
        let decoded = try #require(SharedPageCodec.decode(bytes)?.page)
        #expect(decoded == page)
        #expect(decoded.document.gzip?.body.elementsEqual(member) == true)
        #expect(decoded.document.gzip?.etag == EntityTag.gzipVariant(of: document.etag))
    }

    /// In Redis the value's generation leads the page: the reader drops it, and the body and
    /// gzip member it hands out are the bytes after the header, counted from the value's start.
    @Test func aPageAfterItsGenerationDecodesInPlace() throws {
        let member: [UInt8] = [0x1f, 0x8b, 0x08, 9, 9]
        let document = CachedDocument(status: 200, body: Array("{\"id\":\"p1\"}".utf8), shownProducts: ["p1", "p2"]).withGzip(member)
        let page = SharedPage(document: document, ttl: .seconds(60), stamp: 7)
        let value = Array("gen-token-1 ".utf8) + SharedPageCodec.encode(page, storedAt: Self.storedAt)
        let decoded = try #require(SharedPageCodec.decode(value, dropping: 12))
        #expect(decoded.page == page)
        #expect(decoded.storedAt == Self.storedAt)
        #expect(Array(decoded.page.document.body) == Array("{\"id\":\"p1\"}".utf8))
        #expect(decoded.page.document.gzip.map { Array($0.body) } == member)
        #expect(SharedPageCodec.decode(value, dropping: 11) == nil)
        #expect(SharedPageCodec.decode(value, dropping: value.count) == nil)
        #expect(SharedPageCodec.decode(value, dropping: value.count + 1) == nil)
    }

    @Test func theHeaderIsReadable() {
        let page = SharedPage(
            document: CachedDocument(status: 200, body: Array("{}".utf8), missing: [.reviews], shownProducts: ["a", "b"]),
            ttl: .seconds(5), stamp: 42)
        #expect(SharedPageCodec.encode(page, storedAt: Self.storedAt) == Array("PD4 200 1765000000123 5000 0 0 reviews 42 a,b 0\n{}".utf8))
    }

    @Test(arguments: [
        "", "PD4 ", "PD4 200 1765000000000 60000 0 0 - 0 - 0",
        // The format before (no stored-at time), and another status.
        "PD3 200 60000 0 0 - 0 - 0\n{}", "PD4 500 1765000000000 60000 0 0 - 0 - 0\n{}",
        "PD4 200 1765000000000 0 0 0 - 0 - 0\n{}", "PD4 200 1765000000000 -5 0 0 - 0 - 0\n{}",
        "PD4 200 1765000000000 60000 x 0 - 0 - 0\n{}", "PD4 200 1765000000000 60000 0 0 images 0 - 0\n{}",
        "PD4 200 1765000000000 60000 0 0 reviews,reviews 0 - 0\n{}", "PD4 200 1765000000000 60000 0 0 - 0 0\n{}",
        "PD4 200 1765000000000 60000 0 0 - 0 - 0 extra\n{}", "PD4  200 1765000000000 60000 0 0 - 0 - 0\n{}",
        "PD4 200 1765000000000 60000 0 0 - -1 - 0\n{}", "PD4 200 1765000000000 60000 0 0 - x - 0\n{}",
        "PD4 200 1765000000000 60000 0 0 - 0 a,,b 0\n{}", "PD4 200 1765000000000 60000 0 0 - 0 a,b/c 0\n{}",
        "PD4 200 1765000000000 60000 0 0 - 0  0\n{}",
        // The gzip member: a length past the value, a negative one, none, one that is no gzip.
        "PD4 200 1765000000000 60000 0 0 - 0 - 3\n{}", "PD4 200 1765000000000 60000 0 0 - 0 - -1\n{}",
        "PD4 200 1765000000000 60000 0 0 - 0 -\n{}", "PD4 200 1765000000000 60000 0 0 - 0 - 2\n{}",
        // The stored-at time: none, negative, not a number.
        "PD4 200 60000 0 0 - 0 - 0\n{}", "PD4 200 -1 60000 0 0 - 0 - 0\n{}", "PD4 200 x 60000 0 0 - 0 - 0\n{}",
        // Read in place: a sign, a number too long to hold, a trailing space, a non-ASCII id, an
        // empty part name.
        "PD4 200 1765000000000 +60000 0 0 - 0 - 0\n{}", "PD4 200 1765000000000 1234567890123456789 0 0 - 0 - 0\n{}",
        "PD4 200 1765000000000 60000 0 0 - 0 - 0 \n{}", "PD4 200 1765000000000 60000 0 0 - 0 p\u{e9} 0\n{}",
        "PD4 200 1765000000000 60000 0 0 reviews, 0 - 0\n{}",
    ])
    func refusesAnythingElse(text: String) {
        #expect(SharedPageCodec.decode(Array(text.utf8)) == nil)
    }
}
