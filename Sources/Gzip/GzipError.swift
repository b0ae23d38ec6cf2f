/// Why zlib refused to set up a stream or to inflate a body.
package enum GzipError: Error, Sendable, Equatable {
    /// A level outside the compressor's range: zlib's 0 (stored) to 9, libdeflate's 1 to 12
    /// (smallest).
    case invalidLevel(Int32)
    /// Memory levels run from 1 to 9.
    case invalidMemoryLevel(Int32)
    /// zlib could not allocate a stream's state.
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
