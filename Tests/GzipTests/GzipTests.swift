import PureTestSupport
import Testing

@testable import Gzip
import GzipInflating

@Suite("Gzip inflater")
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
    /// taken from either library under test.
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

    @Test("inflating refuses damaged, cut, followed and oversized members, then still works")
    func inflaterRefusals() throws {
        let body = Self.pageLike(bytes: 2_000, seed: 6)
        let member = try GzipCompressor(level: 1).compress(body)
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
