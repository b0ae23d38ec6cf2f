@testable import RedisSharedCache
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
    func roundTrips(page: SharedPage) {
        #expect(SharedPageCodec.decode(SharedPageCodec.encode(page)) == page)
    }

    @Test func theHeaderIsReadable() {
        let page = SharedPage(
            document: CachedDocument(status: 200, body: Array("{}".utf8), missing: [.reviews], shownProducts: ["a", "b"]),
            ttl: .seconds(5), stamp: 42)
        #expect(SharedPageCodec.encode(page) == Array("PD2 200 5000 0 0 reviews 42 a,b\n{}".utf8))
    }

    @Test(arguments: [
        "", "PD2 ", "PD2 200 60000 0 0 - 0 -", "PD1 200 60000 0 0 -\n{}", "PD2 500 60000 0 0 - 0 -\n{}",
        "PD2 200 0 0 0 - 0 -\n{}", "PD2 200 -5 0 0 - 0 -\n{}", "PD2 200 60000 x 0 - 0 -\n{}", "PD2 200 60000 0 0 images 0 -\n{}",
        "PD2 200 60000 0 0 reviews,reviews 0 -\n{}", "PD2 200 60000 0 0 - 0\n{}", "PD2 200 60000 0 0 - 0 - extra\n{}",
        "PD2  200 60000 0 0 - 0 -\n{}", "PD2 200 60000 0 0 - -1 -\n{}", "PD2 200 60000 0 0 - x -\n{}",
        "PD2 200 60000 0 0 - 0 a,,b\n{}", "PD2 200 60000 0 0 - 0 a,b/c\n{}", "PD2 200 60000 0 0 - 0 \n{}",
    ])
    func refusesAnythingElse(text: String) {
        #expect(SharedPageCodec.decode(Array(text.utf8)) == nil)
    }
}
