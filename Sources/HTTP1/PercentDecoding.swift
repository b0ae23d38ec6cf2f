/// Percent-decoding (RFC 3986 §2.1), the one decoder for every part of a URL the package reads:
/// the server's query parameters and path segments, `REDIS_URL`'s user information. It is strict:
/// a `%` not followed by two hexadecimal digits, or decoded bytes that are not UTF-8, are a
/// failure for the caller to refuse, never passed on as sent.
package enum PercentDecoding {
    package enum Failure: Error, Equatable {
        /// A `%` not followed by two hexadecimal digits.
        case malformedEscape
        /// The decoded bytes are not UTF-8.
        case notUTF8
    }

    /// `text` with every `%XX` replaced by its byte and, when `plusIsSpace` (the form encoding of
    /// a query), every `+` by a space; elsewhere `+` is itself.
    package static func decode(_ text: Substring, plusIsSpace: Bool) throws(Failure) -> String {
        let utf8 = text.utf8
        if !utf8.contains(UInt8(ascii: "%")) && !(plusIsSpace && utf8.contains(UInt8(ascii: "+"))) { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                continue
            }
            guard let high = iterator.next().flatMap(ASCII.hexValue), let low = iterator.next().flatMap(ASCII.hexValue) else {
                throw .malformedEscape
            }
            bytes.append(UInt8(high << 4 | low))
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else { throw .notUTF8 }
        return decoded
    }
}
