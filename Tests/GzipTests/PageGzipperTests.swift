import PureTestSupport
import Testing

@testable import Gzip
import GzipInflating

/// igzip's members for stored pages, read back by zlib's inflater: an independent decoder, as a
/// client's is.
@Suite("Page gzipper")
struct PageGzipperTests {
    static func inflate(_ member: [UInt8]?, size: Int) throws -> [UInt8] {
        let member = try #require(member)
        return try GzipInflater().decompress(member, limit: size)
    }

    @Test("an empty body is a member that inflates to nothing, before and after learning")
    func emptyBody() throws {
        let gzipper = PageGzipper(learning: 1)
        let first = try #require(gzipper.compress([]))
        #expect(Array(first.prefix(3)) == [0x1F, 0x8B, 0x08])
        #expect(try Self.inflate(first, size: 0) == [])
        #expect(try Self.inflate(gzipper.compress([]), size: 0) == [])
    }

    @Test("pages before and after the codes are learnt, and 100 KB of noise, come back whole")
    func roundTrips() throws {
        let gzipper = PageGzipper(learning: 4)
        for seed in 0..<12 {
            let page = GzipTests.pageLike(bytes: 600 + 150 * seed, seed: UInt64(seed))
            #expect(try Self.inflate(gzipper.compress(page), size: page.count) == page)
            #expect(gzipper.usesLearntCodes == (seed >= 3))
        }
        // Incompressible: igzip falls back to stored blocks, which the output has room for.
        let noise = GzipTests.randomBytes(100_000, seed: 13)
        #expect(try Self.inflate(gzipper.compress(noise), size: noise.count) == noise)
    }

    @Test("codes learnt from text still give every byte value a code")
    func learntCodesCoverEveryByte() throws {
        let gzipper = PageGzipper(learning: 2)
        _ = gzipper.compress(GzipTests.pageLike(bytes: 1_000, seed: 1))
        _ = gzipper.compress(GzipTests.pageLike(bytes: 1_000, seed: 2))
        #expect(gzipper.usesLearntCodes)
        let everyByte = (0..<4).flatMap { _ in (0...255).map(UInt8.init) }
        #expect(try Self.inflate(gzipper.compress(everyByte), size: everyByte.count) == everyByte)
    }

    @Test("codes learnt from pages make pages of the same shape smaller than igzip's own codes")
    func learntCodesPay() throws {
        let learning = PageGzipper(learning: 8)
        let generic = PageGzipper(learning: 0)
        for seed in 0..<8 { _ = learning.compress(GzipTests.pageLike(bytes: 1_400, seed: UInt64(100 + seed))) }
        var learnt = 0
        var plain = 0
        for seed in 0..<20 {
            let page = GzipTests.pageLike(bytes: 1_400, seed: UInt64(200 + seed))
            learnt += try #require(learning.compress(page)).count
            plain += try #require(generic.compress(page)).count
        }
        #expect(learnt < plain)
    }
}
