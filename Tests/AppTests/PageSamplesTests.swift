@testable import App
import EventLoop
import Gzip
import GzipInflating
import Testing

@Suite("Page samples")
struct PageSamplesTests {
    @Test func theSamplesArePagesAsTheServiceEncodesThem() {
        #expect(PageSamples.bodies.count == PageSamples.count)
        for body in PageSamples.bodies {
            #expect(body.first == UInt8(ascii: "{") && body.last == UInt8(ascii: "}"))
            #expect(body.count > 512, "a page of the demo catalog")
        }
    }

    /// Two replicas (here two sets of loops) gzip one page to one member.
    @Test func twoReplicasGzipAPageToTheSameBytes() async throws {
        let page = PageSamples.bodies[3]
        var members: [[UInt8]] = []
        for _ in 0..<2 {
            let group = try EventLoopGroup(loopCount: 1)
            defer { group.shutdown() }
            let deflaters = LoopDeflaters(group: group)
            let member = await Task(executorPreference: group.loops[0]) { deflaters.gzip(page[...]) }.value
            members.append(try #require(member))
        }
        #expect(members[0] == members[1])
        #expect(try GzipInflater().decompress(members[0], limit: page.count) == page)
        #expect(members[0].count < page.count * 6 / 10)
    }
}
