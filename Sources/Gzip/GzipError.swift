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
