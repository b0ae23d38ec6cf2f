import CZlib
import Gzip

/// Inflates whole gzip members with one zlib stream, set up once (`inflateInit2`) and reset
/// (`inflateReset`) per body. The service inflates nothing (a page keeps its identity bytes beside
/// its member), so this lives beside the tests: they read every member back with it, with zlib
/// rather than the libdeflate that wrote it, as a client would.
///
/// A zlib stream is not thread-safe and this type is not `Sendable`: keep one per test or thread,
/// never shared.
package final class GzipInflater {
    private let stream: ZlibStream
    /// Where `inflate` writes; it grows to the largest body seen and the result is copied out.
    private var scratch: [UInt8] = []

    /// Only a gzip wrapper is accepted: a zlib or raw deflate stream is `corrupt`.
    package init() throws(GzipError) {
        stream = try ZlibStream()
    }

    /// The bytes that the one gzip member in `member` holds, at most `limit` of them.
    package func decompress(_ member: UnsafeRawBufferPointer, limit: Int) throws(GzipError) -> [UInt8] {
        precondition(member.count <= Int(UInt32.max), "a body larger than zlib's 32-bit counts")
        guard inflateReset(stream.pointer) == Z_OK else { preconditionFailure("inflateReset failed") }
        stream.pointer.pointee.next_in = member.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointer.pointee.avail_in = uInt(member.count)
        // One byte past the limit, so that a body of exactly `limit` bytes can still end.
        let ceiling = limit + 1
        grow(to: min(ceiling, Self.declaredSize(member) + 1))
        var produced = 0
        while true {
            if produced == scratch.count {
                guard produced < ceiling else { throw .tooLarge(limit: limit) }
                grow(to: min(ceiling, scratch.count * 2))
            }
            let status = scratch.withUnsafeMutableBufferPointer { output in
                stream.pointer.pointee.next_out = output.baseAddress! + produced
                stream.pointer.pointee.avail_out = uInt(output.count - produced)
                let status = inflate(stream.pointer, Z_NO_FLUSH)
                produced = output.count - Int(stream.pointer.pointee.avail_out)
                return status
            }
            guard produced <= limit else { throw .tooLarge(limit: limit) }
            switch status {
            case Z_STREAM_END:
                guard stream.pointer.pointee.avail_in == 0 else { throw .trailingBytes }
                return Array(scratch[0..<produced])
            case Z_OK:
                continue
            case Z_BUF_ERROR where stream.pointer.pointee.avail_in == 0:
                throw .truncated
            case Z_BUF_ERROR:
                continue
            case Z_MEM_ERROR:
                throw .outOfMemory
            default:
                throw .corrupt
            }
        }
    }

    package func decompress(_ member: [UInt8], limit: Int) throws(GzipError) -> [UInt8] {
        // withUnsafeBytes rethrows as `any Error`: carry the typed error out as a value.
        let result = member.withUnsafeBytes { bytes in
            Result { () throws(GzipError) in try decompress(bytes, limit: limit) }
        }
        return try result.get()
    }

    /// The member's own claim of its size (ISIZE, the last four bytes, little-endian), as a first
    /// guess of the room needed: it is the size modulo 2^32 and untrusted, so it is only a guess.
    private static func declaredSize(_ member: UnsafeRawBufferPointer) -> Int {
        guard member.count >= 18 else { return 256 }
        var size = 0
        for offset in 0..<4 {
            size |= Int(member[member.count - 4 + offset]) << (8 * offset)
        }
        return max(size, 256)
    }

    private func grow(to count: Int) {
        guard scratch.count < count else { return }
        scratch.append(contentsOf: repeatElement(0, count: count - scratch.count))
    }
}
