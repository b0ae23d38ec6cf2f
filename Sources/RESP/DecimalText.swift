/// Reads the decimal numbers of RESP lines: integer replies, and the lengths and counts that
/// frame bulk payloads and aggregates. Overflow is detected, never trapped, since the digits
/// come from the network.
enum DecimalText {
    /// An optional sign then one or more digits, as a signed 64-bit integer. Every byte is
    /// checked before overflow is reported, so the error names the first thing wrong.
    static func integer(_ text: UnsafeRawBufferPointer) throws(RESPParseError) -> Int64 {
        var index = 0
        var isNegative = false
        if let sign = text.first, sign == ASCII.minus || sign == ASCII.plus {
            isNegative = sign == ASCII.minus
            index = 1
        }
        guard index < text.count else { throw .invalidInteger }
        var magnitude: UInt64 = 0
        var overflowed = false
        while index < text.count {
            let byte = text[index]
            guard ASCII.isDigit(byte) else { throw .invalidInteger }
            let (shifted, shiftOverflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, addOverflow) = shifted.addingReportingOverflow(UInt64(byte - ASCII.zero))
            overflowed = overflowed || shiftOverflow || addOverflow
            magnitude = sum
            index += 1
        }
        let largest = isNegative ? UInt64(Int64.max) + 1 : UInt64(Int64.max)
        guard !overflowed, magnitude <= largest else { throw .integerOverflow }
        return isNegative ? Int64(truncatingIfNeeded: 0 &- magnitude) : Int64(magnitude)
    }

    /// A length or count: nil for exactly `-1` where a null is allowed, otherwise digits whose
    /// value is at most `limit` (else `tooLarge`, which also covers numbers too long for `Int`).
    static func length(
        _ text: UnsafeRawBufferPointer, allowsNull: Bool, limit: Int, tooLarge: RESPParseError
    ) throws(RESPParseError) -> Int? {
        guard let first = text.first else { throw .invalidLength }
        if first == ASCII.minus {
            let digits = text.dropFirst()
            guard !digits.isEmpty, digits.allSatisfy(ASCII.isDigit) else { throw .invalidLength }
            guard allowsNull, digits.elementsEqual("1".utf8) else { throw .negativeLength }
            return nil
        }
        var value = 0
        var exceeded = false
        for byte in text {
            guard ASCII.isDigit(byte) else { throw .invalidLength }
            let (shifted, shiftOverflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, addOverflow) = shifted.addingReportingOverflow(Int(byte - ASCII.zero))
            exceeded = exceeded || shiftOverflow || addOverflow || sum > limit
            value = sum
        }
        if exceeded { throw tooLarge }
        return value
    }
}
