/// `%XY` escapes of a URL's user information, decoded without Foundation.
enum PercentDecoding {
    /// The text with every escape replaced by its byte; `part` names it in the error (never its
    /// content, which may be a password).
    static func decode(_ text: Substring, part: String) throws(RedisURLError) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                throw RedisURLError.badPercentEncoding.detailed("The \(part) holds a '%' not followed by two hexadecimal digits.")
            }
            bytes.append(high << 4 | low)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw RedisURLError.badPercentEncoding.detailed("The decoded \(part) is not UTF-8.")
        }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
