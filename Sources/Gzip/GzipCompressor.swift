import CDeflate

/// Compresses whole bodies into gzip members (RFC 1952) with libdeflate, whose compressor is
/// allocated once (its match finder's tables, about 200 KiB at level 1 and 650 KiB at 2-9) and
/// reused for every body, so the hot path allocates nothing but the result.
///
/// libdeflate takes a whole buffer in one call and does not stream, which suits what we compress:
/// a batch, `/metrics`, each complete before it is compressed (and a page too small for
/// ``PageGzipper``'s member to be smaller). It is faster than zlib at a like size
/// (bench/HISTORY.md, issue 32).
///
/// A libdeflate compressor is not thread-safe and this type is not `Sendable`: keep one per event
/// loop (EventLoop's `LoopLocal`) or per thread, never shared.
package final class GzipCompressor {
    /// libdeflate's scale: 1 (fastest) to 12 (smallest); 10-12 search far harder and allocate
    /// about 9 MiB. Its 0 (stored blocks only, larger than the body) has no use here.
    package static let levels: ClosedRange<Int32> = 1...12

    package let level: Int32
    private let compressor: OpaquePointer
    /// Where libdeflate writes before the result is copied out at its exact size: a result sized
    /// by the bound would keep about as many bytes as the input for as long as it is cached.
    private var scratch: [UInt8] = []

    package init(level: Int32) throws(GzipError) {
        guard Self.levels.contains(level) else { throw .invalidLevel(level) }
        guard let compressor = libdeflate_alloc_compressor(level) else { throw .outOfMemory }
        self.level = level
        self.compressor = compressor
    }

    deinit {
        libdeflate_free_compressor(compressor)
    }

    /// One gzip member holding `body`.
    package func compress(_ body: UnsafeRawBufferPointer) -> [UInt8] {
        // With this much room libdeflate always fits the member; with less it may give up (0).
        let bound = libdeflate_gzip_compress_bound(compressor, body.count)
        if scratch.count < bound { scratch = [UInt8](repeating: 0, count: bound) }
        let produced = scratch.withUnsafeMutableBytes { output in
            // An empty body may have no address, and C promises nothing for a null input even
            // of zero bytes: the output's address stands in, of which no byte is read.
            libdeflate_gzip_compress(
                compressor, body.baseAddress ?? UnsafeRawPointer(output.baseAddress!), body.count, output.baseAddress, bound)
        }
        precondition(produced > 0, "libdeflate_gzip_compress did not fit within its own bound")
        return Array(scratch[0..<produced])
    }

    package func compress(_ body: [UInt8]) -> [UInt8] {
        body.withUnsafeBytes { compress($0) }
    }
}

/// Why libdeflate refused to set up a compressor, or zlib an inflate stream or a body.
package enum GzipError: Error, Sendable, Equatable {
    /// Compression levels run from 1 (fastest) to 12 (smallest): ``GzipCompressor/levels``.
    case invalidLevel(Int32)
    /// libdeflate or zlib could not allocate its state.
    case outOfMemory
    /// The bytes are not a gzip member: a bad header, a bad block or a wrong CRC-32 or length.
    case corrupt
    /// The member ends before its trailer.
    case truncated
    /// More bytes follow the member's trailer (several members are not accepted).
    case trailingBytes
    /// The inflated body would exceed the caller's limit.
    case tooLarge(limit: Int)
}
