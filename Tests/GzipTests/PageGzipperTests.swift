import PureTestSupport
import Testing

@testable import Gzip
import GzipInflating

/// igzip's members for stored pages, read back by zlib's inflater: an independent decoder, as a
/// client's is.
@Suite("Page gzipper")
struct PageGzipperTests {
    static let samples = (0..<8).map { GzipTests.pageLike(bytes: 1_400, seed: UInt64(100 + $0)) }

    static func inflate(_ member: [UInt8]?, size: Int) throws -> [UInt8] {
        let member = try #require(member)
        return try GzipInflater().decompress(member, limit: size)
    }

    @Test("an empty body is a member that inflates to nothing", arguments: [false, true])
    func emptyBody(withSamples: Bool) throws {
        let member = try #require(PageGzipper(samples: withSamples ? Self.samples : []).compress([]))
        #expect(Array(member.prefix(3)) == [0x1F, 0x8B, 0x08])
        #expect(try Self.inflate(member, size: 0) == [])
    }

    @Test("pages of every size and 100 KB of noise come back whole", arguments: [false, true])
    func roundTrips(withSamples: Bool) throws {
        let gzipper = PageGzipper(samples: withSamples ? Self.samples : [])
        #expect(gzipper.usesSampleCodes == withSamples)
        for seed in 0..<12 {
            let page = GzipTests.pageLike(bytes: 100 + 300 * seed, seed: UInt64(seed))
            #expect(try Self.inflate(gzipper.compress(page), size: page.count) == page)
        }
        // Incompressible: igzip falls back to stored blocks, which the output has room for.
        let noise = GzipTests.randomBytes(100_000, seed: 13)
        #expect(try Self.inflate(gzipper.compress(noise), size: noise.count) == noise)
    }

    @Test("codes made from text still give every byte value a code")
    func sampleCodesCoverEveryByte() throws {
        let gzipper = PageGzipper(samples: Self.samples)
        let everyByte = (0..<4).flatMap { _ in (0...255).map(UInt8.init) }
        #expect(try Self.inflate(gzipper.compress(everyByte), size: everyByte.count) == everyByte)
    }

    @Test("codes made from pages make pages of the same shape smaller than igzip's own codes")
    func sampleCodesPay() throws {
        let fitted = PageGzipper(samples: Self.samples)
        let generic = PageGzipper(samples: [])
        var fittedBytes = 0
        var genericBytes = 0
        for seed in 0..<20 {
            let page = GzipTests.pageLike(bytes: 1_400, seed: UInt64(200 + seed))
            fittedBytes += try #require(fitted.compress(page)).count
            genericBytes += try #require(generic.compress(page)).count
        }
        #expect(fittedBytes < genericBytes)
    }

    /// Every loop and replica makes its own gzipper from the same samples: one body must give
    /// one member everywhere, which the variant's single `ETag` stands for.
    @Test("one body makes the same bytes in every gzipper made from the same samples, with no time or name")
    func membersAreTheSameEverywhere() throws {
        let page = GzipTests.pageLike(bytes: 1_400, seed: 7)
        let first = PageGzipper(samples: Self.samples)
        _ = first.compress(GzipTests.pageLike(bytes: 900, seed: 8))
        let member = try #require(first.compress(page))
        #expect(PageGzipper(samples: Self.samples).compress(page) == member)
        // Header: magic, deflate, no flags, modification time 0.
        #expect(Array(member.prefix(8)) == [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0])
    }
}
