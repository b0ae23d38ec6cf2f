/// Writes integers as decimal text straight into a byte buffer, for the lengths and counts of
/// the framing and for integer arguments, without making a `String` for each.
enum DecimalWriter {
    /// Characters of `value` in decimal, its minus sign included.
    static func digitCount(_ value: Int64) -> Int {
        var magnitude = value.magnitude
        var count = value < 0 ? 2 : 1
        while magnitude >= 10 {
            magnitude /= 10
            count += 1
        }
        return count
    }

    static func append(_ value: Int64, to buffer: inout [UInt8]) {
        let count = digitCount(value)
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(ASCII.zero, count: count))
        if value < 0 { buffer[start] = ASCII.minus }
        // `magnitude` is unsigned, so Int64.min needs no special case.
        var magnitude = value.magnitude
        var index = start + count - 1
        repeat {
            buffer[index] = ASCII.zero + UInt8(magnitude % 10)
            magnitude /= 10
            index -= 1
        } while magnitude > 0
    }
}
