/// Strings: one validating pass (control characters, escapes, surrogate pairs, UTF-8) that records
/// where the content is, then either a direct `String(decoding:)` of that byte range or, only when
/// escapes occur, one unescaping pass into the new string's own storage.
extension JSONReader {
    /// Scans the string whose opening quote is at `offset` and moves past its closing quote.
    @inlinable
    mutating func scanString() throws(JSONReadError) -> JSONStringToken {
        let start = offset + 1
        var i = start
        var hasEscapes = false
        while true {
            // Printable ASCII other than `"` and `\` is by far the most common: skipped in runs.
            i = JSONPlainRun.end(in: bytes, from: i, allowingNonASCII: false)
            guard i < bytes.count else { break }
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") {
                offset = i + 1
                return JSONStringToken(start: start, end: i, hasEscapes: hasEscapes)
            } else if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                i = try checkEscape(at: i)
            } else if byte < 0x20 {
                throw syntaxError("unescaped control character in string", at: i)
            } else {
                i = try checkUTF8(at: i)
            }
        }
        throw syntaxError("unterminated string", at: offset)
    }

    /// The decoded text of a scanned string.
    @usableFromInline
    package func string(of token: JSONStringToken) -> String {
        let content = UnsafeBufferPointer(rebasing: bytes[token.start..<token.end])
        guard token.hasEscapes else { return String(decoding: content, as: UTF8.self) }
        // Decoding never lengthens: `\n` is 1 byte for 2, `\uXXXX` at most 3 for 6, a pair 4 for 12.
        return String(unsafeUninitializedCapacity: content.count) { output in
            Self.unescape(content, into: output)
        }
    }

    /// Whether a scanned key equals `name`, compared as decoded code points (`"\u0069d"` is `id`;
    /// `"\u212A"`, the Kelvin sign, is not `K`, though `String` equality would say so).
    @inlinable
    package func key(_ token: JSONStringToken, is name: StaticString) -> Bool {
        guard !token.hasEscapes else {
            return string(of: token).utf8.elementsEqual(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        }
        let count = name.utf8CodeUnitCount
        guard token.end - token.start == count else { return false }
        let expected = name.utf8Start
        for k in 0..<count where bytes[token.start + k] != expected[k] {
            return false
        }
        return true
    }

    // MARK: Validation

    /// Validates the escape whose backslash is at `i`; returns the offset after it.
    @usableFromInline
    func checkEscape(at i: Int) throws(JSONReadError) -> Int {
        guard i + 1 < bytes.count else { throw syntaxError("unterminated string", at: offset) }
        switch bytes[i + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
             UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return i + 2
        case UInt8(ascii: "u"):
            let unit = try hex4(at: i + 2)
            switch unit {
            case 0xD800...0xDBFF:
                guard i + 7 < bytes.count, bytes[i + 6] == UInt8(ascii: "\\"), bytes[i + 7] == UInt8(ascii: "u"),
                      (0xDC00...0xDFFF).contains(try hex4(at: i + 8))
                else { throw syntaxError("unpaired high surrogate in \\u escape", at: i) }
                return i + 12
            case 0xDC00...0xDFFF:
                throw syntaxError("unpaired low surrogate in \\u escape", at: i)
            default:
                return i + 6
            }
        default:
            throw syntaxError("invalid escape in string", at: i)
        }
    }

    /// The value of four hex digits at `i`.
    private func hex4(at i: Int) throws(JSONReadError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw syntaxError("invalid \\u escape", at: i - 2) }
        var value: UInt32 = 0
        for k in i..<(i + 4) {
            guard let digit = Self.hexValue(bytes[k]) else { throw syntaxError("invalid \\u escape", at: i - 2) }
            value = value << 4 | digit
        }
        return value
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte &- UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte &- UInt8(ascii: "a") &+ 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte &- UInt8(ascii: "A") &+ 10)
        default: return nil
        }
    }

    /// Validates the multi-byte UTF-8 sequence whose lead byte (≥ 0x80) is at `i`, per Unicode
    /// table 3-7 (no overlong forms, no encoded surrogates, nothing above U+10FFFF); returns the
    /// offset after it.
    @usableFromInline
    func checkUTF8(at i: Int) throws(JSONReadError) -> Int {
        let lead = bytes[i]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; secondRange = 0x80...0x9F
        case 0xF0: length = 4; secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondRange = 0x80...0x8F
        default: throw syntaxError("invalid UTF-8", at: i)
        }
        guard i + length <= bytes.count, secondRange.contains(bytes[i + 1]) else {
            throw syntaxError("invalid UTF-8", at: i)
        }
        for k in (i + 2)..<(i + length) where bytes[k] & 0xC0 != 0x80 {
            throw syntaxError("invalid UTF-8", at: i)
        }
        return i + length
    }

    // MARK: Decoding

    /// Writes the text of validated string content; returns the number of bytes written.
    private static func unescape(_ input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var i = 0
        var written = 0
        while i < input.count {
            let byte = input[i]
            guard byte == UInt8(ascii: "\\") else {
                output[written] = byte
                written += 1
                i += 1
                continue
            }
            let escaped = input[i + 1]
            i += 2
            switch escaped {
            case UInt8(ascii: "b"): output[written] = 0x08
            case UInt8(ascii: "f"): output[written] = 0x0C
            case UInt8(ascii: "n"): output[written] = 0x0A
            case UInt8(ascii: "r"): output[written] = 0x0D
            case UInt8(ascii: "t"): output[written] = 0x09
            case UInt8(ascii: "u"):
                var scalar = hex4Unchecked(input, at: i)
                i += 4
                if scalar >= 0xD800 && scalar <= 0xDBFF {
                    let low = hex4Unchecked(input, at: i + 2)
                    i += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                written += encodeUTF8(scalar, into: output, at: written)
                continue
            default: output[written] = escaped // `"`, `\` and `/` stand for themselves.
            }
            written += 1
        }
        return written
    }

    /// Writes `scalar` (a valid scalar value) as UTF-8 at `position`; returns its length.
    private static func encodeUTF8(_ scalar: UInt32, into output: UnsafeMutableBufferPointer<UInt8>, at position: Int) -> Int {
        switch scalar {
        case ..<0x80:
            output[position] = UInt8(scalar)
            return 1
        case ..<0x800:
            output[position] = UInt8(0xC0 | scalar >> 6)
            output[position + 1] = UInt8(0x80 | scalar & 0x3F)
            return 2
        case ..<0x10000:
            output[position] = UInt8(0xE0 | scalar >> 12)
            output[position + 1] = UInt8(0x80 | scalar >> 6 & 0x3F)
            output[position + 2] = UInt8(0x80 | scalar & 0x3F)
            return 3
        default:
            output[position] = UInt8(0xF0 | scalar >> 18)
            output[position + 1] = UInt8(0x80 | scalar >> 12 & 0x3F)
            output[position + 2] = UInt8(0x80 | scalar >> 6 & 0x3F)
            output[position + 3] = UInt8(0x80 | scalar & 0x3F)
            return 4
        }
    }

    private static func hex4Unchecked(_ input: UnsafeBufferPointer<UInt8>, at i: Int) -> UInt32 {
        var value: UInt32 = 0
        for k in i..<(i + 4) {
            value = value << 4 | hexValue(input[k]).unsafelyUnwrapped
        }
        return value
    }
}

/// The raw content of a scanned, already validated JSON string: the bytes between its quotes.
@usableFromInline
package struct JSONStringToken: Sendable, Equatable {
    /// Offsets of the first content byte and of the closing quote.
    @usableFromInline package let start: Int
    @usableFromInline package let end: Int
    /// Whether the content holds any backslash escape (else it is the string's UTF-8 as is).
    @usableFromInline package let hasEscapes: Bool

    @inlinable
    package init(start: Int, end: Int, hasEscapes: Bool) {
        self.start = start
        self.end = end
        self.hasEscapes = hasEscapes
    }
}
