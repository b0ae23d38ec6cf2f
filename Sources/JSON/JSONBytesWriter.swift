/// Appends JSON tokens to a byte buffer, so documents can be built by hand in a stable field order.
///
/// Strings are escaped per RFC 8259: quote and backslash get a backslash, control characters
/// become `\u00XX`, and every other UTF-8 byte passes through unchanged.
///
/// The appending functions are `@inlinable`: a document is mostly short tokens, and a call across
/// the module boundary for each would cost more than the append itself.
@usableFromInline
package struct JSONBytesWriter {
    /// The document so far (inlined appends write it directly, hence not `private(set)`).
    @usableFromInline
    var buffer: [UInt8] = []

    /// The bytes written so far.
    @inlinable
    package var bytes: [UInt8] { buffer }

    package init(reservingCapacity capacity: Int = 256) {
        buffer.reserveCapacity(capacity)
    }

    /// Goes on appending to `buffer`, which is left empty until `release()` gives it back: the
    /// storage moves, so a large buffer is neither copied nor reallocated.
    package init(adopting buffer: inout [UInt8]) {
        swap(&self.buffer, &buffer)
    }

    /// The bytes written so far (with what the adopted buffer held); the writer is left empty.
    package mutating func release() -> [UInt8] {
        var out: [UInt8] = []
        swap(&out, &buffer)
        return out
    }

    @inlinable
    package mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { buffer.append(contentsOf: $0) }
    }

    /// Bytes that are already JSON (or part of a token), appended as they are.
    @inlinable
    package mutating func raw(_ text: [UInt8]) {
        buffer.append(contentsOf: text)
    }

    @inlinable
    package mutating func raw(_ text: ArraySlice<UInt8>) {
        buffer.append(contentsOf: text)
    }

    /// `scaled / 10^decimals` as a JSON number with at least one fraction digit and no trailing
    /// zeros beyond it (`1.0`, `0.05`, `12.345`): a duration counted in microseconds is written
    /// in milliseconds without going through floating point.
    @inlinable
    package mutating func fixedPoint(_ scaled: Int, decimals: Int) {
        precondition(decimals > 0 && decimals < 19, "between 1 and 18 fraction digits")
        if scaled < 0 { buffer.append(UInt8(ascii: "-")) }
        var divisor = 1
        for _ in 0..<decimals { divisor *= 10 }
        let magnitude = Int(scaled.magnitude)
        int(magnitude / divisor)
        buffer.append(UInt8(ascii: "."))
        var fraction = magnitude % divisor
        var digits = decimals
        while digits > 1, fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        var place = 1
        for _ in 1..<digits { place *= 10 }
        for _ in 0..<digits {
            buffer.append(UInt8(ascii: "0") + UInt8(fraction / place % 10))
            place /= 10
        }
    }

    /// 16 lowercase hex digits, zero-padded (no `String` made for them).
    @inlinable
    package mutating func hex(_ value: UInt64) {
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: 16))
        buffer.withUnsafeMutableBufferPointer { Self.writeHex(value, into: $0, at: start) }
    }

    /// Writes the 16 hex digits of `value` at `start`.
    @inlinable
    package static func writeHex(_ value: UInt64, into text: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
        let digits: StaticString = "0123456789abcdef"
        for index in 0..<16 {
            text[start + index] = digits.utf8Start[Int((value >> UInt64(60 - 4 * index)) & 0xF)]
        }
    }

    /// Decimal digits written straight into the buffer (no `String` made for them).
    @inlinable
    package mutating func int(_ value: Int) {
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    @inlinable
    package mutating func string(_ value: String) {
        buffer.append(UInt8(ascii: "\""))
        // Read in place when the text is contiguous (native strings are); a copy made
        // contiguous otherwise.
        if value.utf8.withContiguousStorageIfAvailable({ appendEscaped($0) }) == nil {
            var copy = value
            copy.withUTF8 { appendEscaped($0) }
        }
        buffer.append(UInt8(ascii: "\""))
    }

    /// Runs that need no escaping (nearly all text) are appended whole.
    @inlinable
    mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        while true {
            let stop = JSONPlainRun.end(in: utf8, from: runStart, allowingNonASCII: true)
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<stop]))
            guard stop < utf8.count else { return }
            let byte = utf8[stop]
            if byte < 0x20 {
                appendControlEscape(byte)
            } else {
                buffer.append(UInt8(ascii: "\\"))
                buffer.append(byte)
            }
            runStart = stop + 1
        }
    }

    /// Writes `"name":` (the name must not need escaping; it is a literal of ours).
    @inlinable
    package mutating func key(_ name: StaticString) {
        buffer.append(UInt8(ascii: "\""))
        raw(name)
        raw("\":")
    }

    /// `\u00XX` for a control byte: rare, so kept out of line.
    @usableFromInline
    mutating func appendControlEscape(_ byte: UInt8) {
        raw("\\u00")
        buffer.append(Self.hexDigits[Int(byte >> 4)])
        buffer.append(Self.hexDigits[Int(byte & 0x0F)])
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
