import PureTestSupport
import Testing

@testable import Gzip
import GzipInflating

/// libdeflate's members, read back by zlib's inflater: an independent decoder, as a client's is.
@Suite("Gzip compressor")
struct GzipCompressorTests {
    static func roundTrip(_ body: [UInt8], with compressor: GzipCompressor) throws -> [UInt8] {
        try GzipInflater().decompress(compressor.compress(body), limit: body.count)
    }

    @Test("an empty body is a member that inflates to nothing")
    func emptyBody() throws {
        let member = try GzipCompressor(level: 1).compress([])
        #expect(Array(member.prefix(3)) == [0x1F, 0x8B, 0x08])
        #expect(try GzipInflater().decompress(member, limit: 0) == [])
    }

    @Test("a page, 100 KB of text and 100 KB of noise come back whole", arguments: [Int32(1), 6, 9, 12])
    func roundTrips(level: Int32) throws {
        let compressor = try GzipCompressor(level: level)
        let page = GzipTests.pageLike(bytes: 1_400, seed: 11)
        #expect(try Self.roundTrip(page, with: compressor) == page)
        let text = GzipTests.pageLike(bytes: 100_000, seed: 12)
        let member = compressor.compress(text)
        #expect(member.count < text.count / 3)
        #expect(try GzipInflater().decompress(member, limit: text.count) == text)
        // Incompressible: the member is a little larger than the body, within libdeflate's bound.
        let noise = GzipTests.randomBytes(100_000, seed: 13)
        #expect(try Self.roundTrip(noise, with: compressor) == noise)
    }

    @Test("header: magic, deflate, no flags, no time; trailer: CRC-32 and size", arguments: [Int32(1), 6, 12])
    func headerAndTrailer(level: Int32) throws {
        let body = GzipTests.pageLike(bytes: 1_400, seed: 14)
        let member = try GzipCompressor(level: level).compress(body)
        // No time and no name: the same body makes the same bytes on every replica.
        #expect(Array(member.prefix(8)) == [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0])
        #expect(GzipTests.littleEndian32(member.suffix(8).prefix(4)) == GzipTests.crc32(body))
        #expect(GzipTests.littleEndian32(member.suffix(4)) == UInt32(body.count))
    }

    @Test("levels outside 1...12 are refused, and each inside is taken")
    func levels() throws {
        #expect(throws: GzipError.invalidLevel(0)) { try GzipCompressor(level: 0) }
        #expect(throws: GzipError.invalidLevel(13)) { try GzipCompressor(level: 13) }
        #expect(throws: GzipError.invalidLevel(-1)) { try GzipCompressor(level: -1) }
        for level in GzipCompressor.levels {
            #expect(try GzipCompressor(level: level).level == level)
        }
    }

    @Test("one compressor, reused across bodies that grow and shrink, writes what a new one writes")
    func reuse() throws {
        let reused = try GzipCompressor(level: 1)
        let sizes = [0, 1, 17, 511, 512, 1_400, 120_000, 300, 40_000, 0, 2_336, 5]
        let bodies = sizes.enumerated().flatMap { index, size in
            [GzipTests.pageLike(bytes: size, seed: UInt64(index)), GzipTests.randomBytes(size, seed: UInt64(index))]
        }
        let inflater = try GzipInflater()
        for body in bodies {
            let member = reused.compress(body)
            #expect(try inflater.decompress(member, limit: body.count) == body, "size \(body.count)")
            #expect(member == (try GzipCompressor(level: 1)).compress(body), "size \(body.count)")
        }
    }

    @Test("a member keeps no room beyond its bytes, after a larger body grew the scratch buffer")
    func exactSize() throws {
        let compressor = try GzipCompressor(level: 1)
        _ = compressor.compress(GzipTests.randomBytes(200_000, seed: 15))
        let text = GzipTests.pageLike(bytes: 100_000, seed: 16)
        let member = compressor.compress(text)
        // The bound is about the body's size; the member is under a third of it.
        #expect(member.capacity < text.count / 2)
    }
}
