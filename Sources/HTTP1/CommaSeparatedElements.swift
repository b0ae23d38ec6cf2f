/// Walks the elements of a `#list` field value (RFC 9110 §5.6.1) without
/// allocating: each element is a trimmed view into the original string, and
/// empty elements (as in "a, , b") are skipped as the RFC requires.
struct CommaSeparatedElements: Sequence, IteratorProtocol {
    private let bytes: Substring.UTF8View
    private var position: Substring.UTF8View.Index

    init(_ value: String) {
        self.bytes = Substring(value).utf8
        self.position = bytes.startIndex
    }

    mutating func next() -> Substring.UTF8View? {
        while position < bytes.endIndex {
            let end = bytes[position...].firstIndex(of: ASCII.comma) ?? bytes.endIndex
            let element = ASCII.trimmingWhitespace(bytes[position..<end])
            position = end < bytes.endIndex ? bytes.index(after: end) : end
            if !element.isEmpty { return element }
        }
        return nil
    }
}
