import PureTestSupport
import Testing

@testable import Gzip

@Suite("Gzip deflater and inflater")
struct GzipTests {
    /// A product page's shape: JSON with repeated keys, the text gzip is meant for.
    static func pageLike(bytes count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        var text: [UInt8] = []
        text.reserveCapacity(count + 64)
        while text.count < count {
            let id = random.below(100_000)
            text += Array(#"{"id":"p\#(id)","name":"Product \#(id)","rating":\#(random.below(5)),"tags":["a","b"]},"#.utf8)
        }
        return Array(text.prefix(count))
    }

    static func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    /// CRC-32 (IEEE, reflected) bit by bit: slow, but written from the definition rather than
    /// taken from the zlib under test.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 {
                crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
            }
        }
        return ~crc
    }

    static func littleEndian32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    @Test("one deflater, reused across bodies of every size, round-trips each")
    func roundTrips() throws {
        let deflater = try GzipDeflater()
        let inflater = try GzipInflater()
        let bodies = [0, 1, 17, 511, 512, 1_400, 40_000, 120_000, 300].enumerated().flatMap { index, size in
            [Self.pageLike(bytes: size, seed: UInt64(index)), Self.randomBytes(size, seed: UInt64(index))]
        }
        for body in bodies {
            let member = deflater.compress(body)
            #expect(try inflater.decompress(member, limit: body.count) == body, "size \(body.count)")
        }
    }

    @Test("a reset leaves nothing behind: a reused stream writes what a new one writes")
    func resetIsClean() throws {
        let reused = try GzipDeflater()
        _ = reused.compress(Self.pageLike(bytes: 50_000, seed: 1))
        let body = Self.pageLike(bytes: 1_400, seed: 2)
        #expect(reused.compress(body) == (try GzipDeflater()).compress(body))
    }

    @Test("an empty body is a 20-byte member that inflates to nothing")
    func emptyBody() throws {
        let member = try GzipDeflater().compress([])
        #expect(member.count == 20)
        #expect(try GzipInflater().decompress(member, limit: 0) == [])
    }

    @Test("a large body: 1 MiB of text shrinks and comes back; 256 KiB of noise fits deflateBound")
    func largeBodies() throws {
        let deflater = try GzipDeflater()
        let inflater = try GzipInflater()
        let text = Self.pageLike(bytes: 1 << 20, seed: 3)
        let member = deflater.compress(text)
        #expect(member.count < text.count / 3)
        #expect(try inflater.decompress(member, limit: text.count) == text)
        let noise = Self.randomBytes(256 << 10, seed: 4)
        #expect(try inflater.decompress(deflater.compress(noise), limit: noise.count) == noise)
    }

    @Test("header: magic, deflate, no flags, no time, the level's XFL, Unix; trailer: CRC-32 and size",
          arguments: [(Int32(1), UInt8(4)), (6, 0), (9, 2)])
    func headerAndTrailer(level: Int32, extraFlags: UInt8) throws {
        let body = Self.pageLike(bytes: 1_400, seed: 5)
        let member = try GzipDeflater(level: level).compress(body)
        #expect(Array(member.prefix(10)) == [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, extraFlags, 0x03])
        #expect(Self.littleEndian32(member.suffix(8).prefix(4)) == Self.crc32(body))
        #expect(Self.littleEndian32(member.suffix(4)) == UInt32(body.count))
    }

    @Test("levels outside 0...9 and memory levels outside 1...9 are refused")
    func invalidLevel() {
        #expect(throws: GzipError.invalidLevel(10)) { try GzipDeflater(level: 10) }
        #expect(throws: GzipError.invalidLevel(-1)) { try GzipDeflater(level: -1) }
        #expect(throws: GzipError.invalidMemoryLevel(0)) { try GzipDeflater(memoryLevel: 0) }
        #expect(throws: GzipError.invalidMemoryLevel(10)) { try GzipDeflater(memoryLevel: 10) }
    }

    @Test("a smaller hash table still round-trips, pages and large bodies alike", arguments: [Int32(1), 4, 9])
    func memoryLevels(memoryLevel: Int32) throws {
        let deflater = try GzipDeflater(level: 6, memoryLevel: memoryLevel)
        let inflater = try GzipInflater()
        for body in [Self.pageLike(bytes: 1_400, seed: 7), Self.pageLike(bytes: 200_000, seed: 8)] {
            #expect(try inflater.decompress(deflater.compress(body), limit: body.count) == body)
        }
    }

    @Test("inflating refuses damaged, cut, followed and oversized members, then still works")
    func inflaterRefusals() throws {
        let body = Self.pageLike(bytes: 2_000, seed: 6)
        let member = try GzipDeflater().compress(body)
        let inflater = try GzipInflater()
        var wrongCRC = member
        wrongCRC[member.count - 8] ^= 0xFF
        #expect(throws: GzipError.corrupt) { try inflater.decompress(wrongCRC, limit: 10_000) }
        #expect(throws: GzipError.corrupt) { try inflater.decompress(Array("not gzip at all".utf8), limit: 10_000) }
        #expect(throws: GzipError.truncated) { try inflater.decompress(Array(member.dropLast(3)), limit: 10_000) }
        #expect(throws: GzipError.truncated) { try inflater.decompress([], limit: 10_000) }
        #expect(throws: GzipError.trailingBytes) { try inflater.decompress(member + [0], limit: 10_000) }
        #expect(throws: GzipError.tooLarge(limit: 1_999)) { try inflater.decompress(member, limit: 1_999) }
        #expect(try inflater.decompress(member, limit: 2_000) == body)
    }
}
