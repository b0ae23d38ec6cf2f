/// A strict, forward-only RFC 8259 reader over UTF-8 bytes, for the few fixed shapes the upstreams
/// send. It builds no tree: callers walk the document (`openObject`, `readKey`, `readString`,
/// `readInt`, `skipValue`, …) and keep only the values they want.
///
/// Strictness: no trailing commas, comments, single quotes, unquoted keys, leading zeros, `+1`,
/// `.5`, `1.`, NaN/Infinity, unescaped control characters, invalid escapes, unpaired UTF-16
/// surrogates in `\u` escapes, or invalid UTF-8 (overlong forms, encoded surrogates, > U+10FFFF);
/// a byte-order mark is not whitespace. Nesting is bounded by ``maxDepth``, so hostile input
/// cannot exhaust the stack.
///
/// The bytes are borrowed: a reader lives only inside `withUnsafeBufferPointer` of its body.
@usableFromInline
package struct JSONReader {
    /// The deepest nesting of arrays and objects accepted, counting the outermost container.
    package static let maxDepth = 64

    @usableFromInline
    package let bytes: UnsafeBufferPointer<UInt8>
    /// The next byte to read.
    @usableFromInline
    package var offset = 0
    /// Open arrays and objects around the current position.
    package private(set) var depth = 0
    /// The element of the top-level array being read, for messages.
    package var index: Int?
    /// The key of the member being read, for messages (kept as a token: the hot path never makes
    /// a string of it).
    package var field: JSONStringToken?

    package init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    // MARK: Messages

    /// Where the reader is, as `0.rating`, `0`, `priceInCents` or `body`.
    package var path: String {
        switch (index, field.map(label(of:))) {
        case let (index?, field?): return "\(index).\(field)"
        case let (index?, nil): return String(index)
        case let (nil, field?): return field
        case (nil, nil): return "body"
        }
    }

    /// A key as messages name it: decoded, but never echoing a long one.
    package func label(of key: JSONStringToken) -> String {
        let name = string(of: key)
        return name.utf8.count <= 40 ? name : "(a key of \(name.utf8.count) bytes)"
    }

    /// A syntax error at `position` (the current offset by default).
    @usableFromInline
    package func syntaxError(_ reason: String, at position: Int? = nil) -> JSONReadError {
        JSONReadError("invalid JSON at \(path) (offset \(position ?? offset)): \(reason)")
    }

    /// The error for a value that is not of the expected type: `null at …`, `wrong type at …`, or a
    /// syntax error when no value starts at the current offset.
    package func mismatch() -> JSONReadError {
        guard offset < bytes.count else { return syntaxError("unexpected end of input") }
        switch bytes[offset] {
        case UInt8(ascii: "n"):
            return hasLiteral("null") ? JSONReadError("null at \(path)") : syntaxError("invalid literal")
        case UInt8(ascii: "\""), UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "-"),
             UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return JSONReadError("wrong type at \(path)")
        default:
            return syntaxError("unexpected character")
        }
    }

    // MARK: Whitespace and punctuation

    /// Skips JSON whitespace (space, tab, line feed, carriage return) and returns the next byte, or
    /// nil at the end of the input.
    @inlinable
    package mutating func peek() -> UInt8? {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x0A, 0x0D, 0x09: offset += 1
            case let byte: return byte
            }
        }
        return nil
    }

    /// Requires that only whitespace is left.
    package mutating func expectEnd() throws(JSONReadError) {
        index = nil
        field = nil
        if peek() != nil { throw syntaxError("unexpected data after the document") }
    }

    // MARK: Containers

    /// Reads `{`; returns false if the object is empty (its `}` is consumed too).
    package mutating func openObject() throws(JSONReadError) -> Bool {
        guard peek() == UInt8(ascii: "{") else { throw mismatch() }
        try enter()
        if peek() == UInt8(ascii: "}") {
            offset += 1
            depth -= 1
            return false
        }
        return true
    }

    /// After a member's value: reads `,` and returns true, or reads `}` and returns false.
    package mutating func nextMember() throws(JSONReadError) -> Bool {
        switch peek() {
        case UInt8(ascii: ","):
            offset += 1
            if peek() == UInt8(ascii: "}") { throw syntaxError("trailing comma in object") }
            return true
        case UInt8(ascii: "}"):
            offset += 1
            depth -= 1
            return false
        case nil: throw syntaxError("unexpected end of input in object")
        default: throw syntaxError("expected ',' or '}' in object")
        }
    }

    /// Reads `[`; returns false if the array is empty (its `]` is consumed too).
    package mutating func openArray() throws(JSONReadError) -> Bool {
        guard peek() == UInt8(ascii: "[") else { throw mismatch() }
        try enter()
        if peek() == UInt8(ascii: "]") {
            offset += 1
            depth -= 1
            return false
        }
        return true
    }

    /// After an element: reads `,` and returns true, or reads `]` and returns false.
    package mutating func nextElement() throws(JSONReadError) -> Bool {
        switch peek() {
        case UInt8(ascii: ","):
            offset += 1
            if peek() == UInt8(ascii: "]") { throw syntaxError("trailing comma in array") }
            return true
        case UInt8(ascii: "]"):
            offset += 1
            depth -= 1
            return false
        case nil: throw syntaxError("unexpected end of input in array")
        default: throw syntaxError("expected ',' or ']' in array")
        }
    }

    /// Consumes the opening bracket at `offset`, refusing to nest deeper than ``maxDepth``.
    private mutating func enter() throws(JSONReadError) {
        guard depth < Self.maxDepth else { throw syntaxError("nesting deeper than \(Self.maxDepth)") }
        depth += 1
        offset += 1
    }

    /// Reads a member's key and the `:` after it.
    package mutating func readKey() throws(JSONReadError) -> JSONStringToken {
        guard peek() == UInt8(ascii: "\"") else {
            throw syntaxError(offset < bytes.count ? "expected a quoted key" : "unexpected end of input in object")
        }
        let key = try scanString()
        guard peek() == UInt8(ascii: ":") else { throw syntaxError("expected ':' after key") }
        offset += 1
        return key
    }

    // MARK: Values

    /// Reads a string value.
    package mutating func readString() throws(JSONReadError) -> String {
        guard peek() == UInt8(ascii: "\"") else { throw mismatch() }
        return string(of: try scanString())
    }

    /// Reads an integer: a JSON number without fraction or exponent that fits in `Int`. Other
    /// numbers (`12.5`, `1e3`, `99999999999999999999`) are refused, never rounded.
    package mutating func readInt() throws(JSONReadError) -> Int {
        guard let first = peek(), first == UInt8(ascii: "-") || Self.isDigit(first) else { throw mismatch() }
        let start = offset
        var i = offset
        let negative = first == UInt8(ascii: "-")
        if negative { i += 1 }
        guard i < bytes.count, Self.isDigit(bytes[i]) else { throw syntaxError("digit expected in number", at: i) }
        // Accumulated as a negative value, so that Int.min is reachable.
        var value = 0
        var overflow = false
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            if i < bytes.count, Self.isDigit(bytes[i]) { throw syntaxError("leading zero in number", at: start) }
        } else {
            while i < bytes.count, Self.isDigit(bytes[i]) {
                let (times10, o1) = value.multipliedReportingOverflow(by: 10)
                let (next, o2) = times10.subtractingReportingOverflow(Int(bytes[i] &- UInt8(ascii: "0")))
                value = next
                overflow = overflow || o1 || o2
                i += 1
            }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") || bytes[i] | 0x20 == UInt8(ascii: "e") {
            try skipNumber()
            throw JSONReadError("number at \(path) is not an integer (offset \(start))")
        }
        if !negative {
            if value == Int.min { overflow = true } else { value = -value }
        }
        if overflow { throw JSONReadError("integer out of range at \(path) (offset \(start))") }
        offset = i
        return value
    }

    /// Reads any JSON number as the nearest `Double`, and whether it was written as an integer
    /// (no fraction, no exponent). For values where `12.5` or `1e3` are as good as `12` or `1000`.
    package mutating func readNumber() throws(JSONReadError) -> (value: Double, isInteger: Bool) {
        guard let first = peek(), first == UInt8(ascii: "-") || Self.isDigit(first) else { throw mismatch() }
        let start = offset
        try skipNumber()
        let text = UnsafeBufferPointer(rebasing: bytes[start..<offset])
        let isInteger = !text.contains { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }
        // Validated and within range (`skipNumber`), so the conversion cannot fail.
        let value = Double(String(decoding: text, as: UTF8.self)) ?? .nan
        return (value, isInteger)
    }

    /// Reads `true` or `false`.
    package mutating func readBool() throws(JSONReadError) -> Bool {
        switch peek() {
        case UInt8(ascii: "t") where hasLiteral("true"):
            offset += 4
            return true
        case UInt8(ascii: "f") where hasLiteral("false"):
            offset += 5
            return false
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            throw syntaxError("invalid literal")
        default:
            throw mismatch()
        }
    }

    /// Reads `null` if it is the next value and returns true; otherwise reads nothing.
    package mutating func readNull() -> Bool {
        guard peek() == UInt8(ascii: "n"), hasLiteral("null") else { return false }
        offset += 4
        return true
    }

    /// Validates and skips any value, however nested (up to ``maxDepth``).
    package mutating func skipValue() throws(JSONReadError) {
        guard let byte = peek() else { throw syntaxError("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "\""):
            _ = try scanString()
        case UInt8(ascii: "{"):
            if try openObject() {
                repeat {
                    _ = try readKey()
                    try skipValue()
                } while try nextMember()
            }
        case UInt8(ascii: "["):
            if try openArray() {
                repeat {
                    try skipValue()
                } while try nextElement()
            }
        case UInt8(ascii: "t"): try skipLiteral("true")
        case UInt8(ascii: "f"): try skipLiteral("false")
        case UInt8(ascii: "n"): try skipLiteral("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try skipNumber()
        default: throw syntaxError("unexpected character")
        }
    }

    /// Validates and skips `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func skipNumber() throws(JSONReadError) {
        var i = offset
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < bytes.count, Self.isDigit(bytes[i]) else { throw syntaxError("digit expected in number", at: i) }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            if i < bytes.count, Self.isDigit(bytes[i]) { throw syntaxError("leading zero in number", at: offset) }
        } else {
            i = skipDigits(from: i)
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard i < bytes.count, Self.isDigit(bytes[i]) else { throw syntaxError("digit expected after '.'", at: i) }
            i = skipDigits(from: i)
        }
        var mayOverflow = i - offset > Self.maxExactDigits
        if i < bytes.count, bytes[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count, Self.isDigit(bytes[i]) else { throw syntaxError("digit expected in exponent", at: i) }
            i = skipDigits(from: i)
            mayOverflow = true
        }
        // A number beyond Double's range is refused, as Foundation refuses it: readers that
        // agree on which documents are valid cannot be played against each other.
        if mayOverflow, !Self.isFinite(UnsafeBufferPointer(rebasing: bytes[offset..<i])) {
            throw syntaxError("number out of range", at: offset)
        }
        offset = i
    }

    /// Without an exponent, a number this long (sign and fraction included) is always finite.
    private static let maxExactDigits = 300

    /// Whether a validated number is within Double's range (rare: only exponents and long numbers
    /// get here).
    private static func isFinite(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        Double(String(decoding: text, as: UTF8.self))?.isFinite ?? false
    }

    private func skipDigits(from start: Int) -> Int {
        var i = start
        while i < bytes.count, Self.isDigit(bytes[i]) { i += 1 }
        return i
    }

    private mutating func skipLiteral(_ literal: StaticString) throws(JSONReadError) {
        guard hasLiteral(literal) else { throw syntaxError("invalid literal") }
        offset += literal.utf8CodeUnitCount
    }

    /// Whether `literal` starts at `offset` (it is not consumed).
    private func hasLiteral(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - offset >= count else { return false }
        for k in 0..<count where bytes[offset + k] != literal.utf8Start[k] {
            return false
        }
        return true
    }

    @inlinable
    static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }
}

/// Why an upstream body could not be read as one of our shapes.
///
/// `message` names the field (as `0.rating`, `priceInCents` or `body`) and, for syntax problems,
/// the byte offset; it never echoes the body, which may be large or hostile. ``UpstreamJSON`` turns
/// it into ``UpstreamFailure/malformedBody(_:)``.
@usableFromInline
package struct JSONReadError: Error, Sendable, Equatable {
    package let message: String

    package init(_ message: String) {
        self.message = message
    }
}
