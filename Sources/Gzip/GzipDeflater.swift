import CZlib

/// Compresses whole bodies into gzip members (RFC 1952) with one zlib stream, set up once
/// (`deflateInit2`, which allocates about 256 KiB) and only reset (`deflateReset`) per body, so
/// the hot path allocates nothing but the result.
///
/// A zlib stream is not thread-safe and this type is not `Sendable`: keep one per event loop
/// (EventLoop's `LoopLocal`) or per thread, never shared.
package final class GzipDeflater {
    /// zlib's default: 8 gives a 64 KiB hash table.
    package static let defaultMemoryLevel: Int32 = 8

    package let level: Int32
    private let stream: ZlibStream
    /// Where `deflate` writes before the result is copied out at its exact size: a result sized
    /// by `deflateBound` would keep about as many bytes as the input for as long as it is cached.
    private var scratch: [UInt8] = []

    /// `level`: 1 (fastest) to 9 (smallest); 6 is zlib's default. `memoryLevel`: 1 to 9, the hash
    /// table's size (2^(memoryLevel + 8) bytes), which every reset clears.
    package init(level: Int32 = 6, memoryLevel: Int32 = GzipDeflater.defaultMemoryLevel) throws(GzipError) {
        guard (0...9).contains(level) else { throw .invalidLevel(level) }
        guard (1...9).contains(memoryLevel) else { throw .invalidMemoryLevel(memoryLevel) }
        self.level = level
        stream = try ZlibStream(.deflate(level: level, memoryLevel: memoryLevel))
    }

    /// One gzip member holding `body`.
    package func compress(_ body: UnsafeRawBufferPointer) -> [UInt8] {
        precondition(body.count <= Int(UInt32.max), "a body larger than zlib's 32-bit counts")
        // Only a stream in a bad state fails to reset, and every call leaves this one finished.
        guard deflateReset(stream.pointer) == Z_OK else { preconditionFailure("deflateReset failed") }
        // With Z_FINISH and this much room, one deflate call always ends the member.
        let bound = Int(deflateBound(stream.pointer, uLong(body.count)))
        if scratch.count < bound { scratch = [UInt8](repeating: 0, count: bound) }
        let produced = scratch.withUnsafeMutableBufferPointer { output in
            stream.pointer.pointee.next_in = body.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.pointer.pointee.avail_in = uInt(body.count)
            stream.pointer.pointee.next_out = output.baseAddress
            stream.pointer.pointee.avail_out = uInt(bound)
            let status = deflate(stream.pointer, Z_FINISH)
            precondition(status == Z_STREAM_END, "deflate did not finish within deflateBound")
            return bound - Int(stream.pointer.pointee.avail_out)
        }
        return Array(scratch[0..<produced])
    }

    package func compress(_ body: [UInt8]) -> [UInt8] {
        body.withUnsafeBytes { compress($0) }
    }
}
