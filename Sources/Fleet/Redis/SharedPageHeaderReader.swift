/// The fields of a stored page's header line, read in place: no string is made for the line or
/// its fields, only for the ids a page shows (short enough that a string holds them inline).
///
/// Fields are separated by one space each; a number is decimal digits only (no sign), so every
/// value the encoder writes reads back and nothing else does.
struct SharedPageHeaderReader {
    private let bytes: ArraySlice<UInt8>
    private var position: Int
    private let end: Int
    /// The last field read ended the line: no field follows.
    private(set) var isAtEnd = false

    /// The line in `bytes[start..<end]`.
    init(_ bytes: ArraySlice<UInt8>, from start: Int, to end: Int) {
        self.bytes = bytes
        position = start
        self.end = end
    }

    /// The next field's bytes; nil when the line has ended or the field is empty.
    mutating func field() -> Range<Int>? {
        guard !isAtEnd else { return nil }
        let start = position
        while position < end, bytes[position] != UInt8(ascii: " ") { position += 1 }
        let field = start..<position
        if position == end { isAtEnd = true } else { position += 1 }
        return field.isEmpty ? nil : field
    }

    /// The next field as a number of at most 18 digits (no overflow, no sign).
    mutating func number() -> Int64? {
        guard let field = field(), field.count <= 18 else { return nil }
        var value: Int64 = 0
        for index in field {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int64(digit)
        }
        return value
    }

    /// Whether `field` is `-`, the encoder's word for an empty list.
    func isNone(_ field: Range<Int>) -> Bool {
        field.count == 1 && bytes[field.lowerBound] == UInt8(ascii: "-")
    }

    /// How many comma-separated items `field` holds, so a list of them is sized once.
    func itemCount(in field: Range<Int>) -> Int {
        bytes[field].reduce(1) { $0 + ($1 == UInt8(ascii: ",") ? 1 : 0) }
    }

    /// Calls `item` with each comma-separated item of `field`, in order, while it returns true;
    /// false if an item is empty or `item` refused one.
    func forEachItem(in field: Range<Int>, _ item: (ArraySlice<UInt8>) -> Bool) -> Bool {
        var start = field.lowerBound
        for index in field.lowerBound...field.upperBound where index == field.upperBound || bytes[index] == UInt8(ascii: ",") {
            guard index > start, item(bytes[start..<index]) else { return false }
            start = index + 1
        }
        return true
    }
}
