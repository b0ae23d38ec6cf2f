/// Numbers as text in the URL-safe base64 alphabet (RFC 4648 §5), six bits a character, most
/// significant first: short tokens and tags that a Swift string holds inline, with no character
/// a header, a Redis value or a Lua pattern treats specially.
package enum URLSafeBase64 {
    private static let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

    /// Writes the low `bits` bits of `value` (a multiple of 6) as `bits / 6` characters into
    /// `buffer` from `offset`; returns the offset after them.
    @discardableResult
    package static func write(_ value: UInt64, bits: Int, into buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) -> Int {
        let count = bits / 6
        alphabet.withUTF8Buffer { alphabet in
            for index in 0..<count {
                buffer[offset + index] = alphabet[Int(truncatingIfNeeded: value >> UInt64(bits - 6 * (index + 1))) & 63]
            }
        }
        return offset + count
    }
}
