/// One argument of a Redis command, sent as a bulk string.
///
/// Each case keeps the caller's own storage (an array is shared, not copied), so building a
/// command copies nothing and its bytes are written once, by `RESPCommand.encode(into:)`.
package enum RESPArgument: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    /// Any bytes, including CR, LF and NUL: bulk strings are length-prefixed.
    case bytes([UInt8])
    /// Sent as its UTF-8 encoding.
    case string(String)
    /// Sent as decimal text, the form Redis expects for counts, expiries and scores.
    case integer(Int64)

    package init(stringLiteral value: String) {
        self = .string(value)
    }

    package init(integerLiteral value: Int64) {
        self = .integer(value)
    }

    /// Bytes of the argument's payload (without its `$<length>\r\n` header and CRLF).
    var payloadCount: Int {
        switch self {
        case .bytes(let bytes): bytes.count
        case .string(let string): string.utf8.count
        case .integer(let value): DecimalWriter.digitCount(value)
        }
    }

    func appendPayload(to buffer: inout [UInt8]) {
        switch self {
        case .bytes(let bytes): buffer.append(contentsOf: bytes)
        case .string(let string): buffer.append(contentsOf: string.utf8)
        case .integer(let value): DecimalWriter.append(value, to: &buffer)
        }
    }
}
