@testable import RedisSharedCache
import ProductDetails
import Testing

@Suite("Shared page format")
struct SharedPageCodecTests {
    @Test(arguments: [
        SharedPage(document: CachedDocument(status: 200, body: Array("{\"a\":1}\n\r\n".utf8)), ttl: .seconds(60), staleIfError: .seconds(300), staleWhileRevalidate: .seconds(30)),
        SharedPage(document: CachedDocument(status: 200, body: [], missing: [.reviews, .suggested]), ttl: .milliseconds(1500)),
        SharedPage(document: CachedDocument(status: 404, body: Array("{}".utf8)), ttl: .seconds(5)),
    ])
    func roundTrips(page: SharedPage) {
        #expect(SharedPageCodec.decode(SharedPageCodec.encode(page)) == page)
    }

    @Test(arguments: [
        "", "PD1 ", "PD1 200 60000 0 0 -", "PD2 200 60000 0 0 -\n{}", "PD1 500 60000 0 0 -\n{}",
        "PD1 200 0 0 0 -\n{}", "PD1 200 -5 0 0 -\n{}", "PD1 200 60000 x 0 -\n{}", "PD1 200 60000 0 0 images\n{}",
        "PD1 200 60000 0 0 reviews,reviews\n{}", "PD1 200 60000 0 0\n{}", "PD1 200 60000 0 0 - extra\n{}",
        "PD1  200 60000 0 0 -\n{}",
    ])
    func refusesAnythingElse(text: String) {
        #expect(SharedPageCodec.decode(Array(text.utf8)) == nil)
    }
}
