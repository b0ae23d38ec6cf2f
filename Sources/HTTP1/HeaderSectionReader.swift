/// Collects the field lines of a header section or of chunked trailers into
/// `HTTPHeaders`, enforcing the size and count limits. Strings are created once
/// per complete line, never while scanning. Trailers continue the budget of the
/// header section they follow, so a peer cannot double the allowance.
///
/// A reader made with `keepingLines` builds no strings: it copies each validated line
/// into `lines` (for ``HTTPFieldLines``) and notes only the framing fields.
struct HeaderSectionReader: Sendable {
    private var scanner = FieldLineScanner()
    private(set) var headers = HTTPHeaders()
    private var lines: [UInt8] = []
    private let keepsLines: Bool
    private(set) var framingFields = FramingFields()
    /// Bytes of complete field lines so far, each including its CRLF.
    private(set) var bytesUsed: Int
    private(set) var fieldCount: Int
    private let maxBytes: Int
    private let maxCount: Int

    init(limits: HTTPLimits, bytesUsed: Int = 0, fieldCount: Int = 0, keepingLines: Bool = false) {
        self.maxBytes = limits.maxHeaderBytes
        self.maxCount = limits.maxHeaderCount
        self.bytesUsed = bytesUsed
        self.fieldCount = fieldCount
        self.keepsLines = keepingLines
    }

    /// The fields read so far, moved out (the reader is left with none).
    mutating func takeHeaders() -> HTTPHeaders {
        moveOut(&headers, leaving: HTTPHeaders())
    }

    /// The lines kept so far (`keepingLines` readers), moved out.
    mutating func takeLines() -> HTTPFieldLines {
        HTTPFieldLines(validated: moveOut(&lines, leaving: []))
    }

    /// Consumes complete field lines from `offset`, advancing it. Returns true once
    /// the blank line closing the section has been consumed, false when more input
    /// is needed (then `offset` is the start of the incomplete line).
    mutating func read(_ input: UnsafeRawBufferPointer, offset: inout Int) throws(HTTPParseError) -> Bool {
        while true {
            // The line plus its CRLF must still fit in what is left of the budget.
            let budget = max(0, maxBytes - bytesUsed - 2)
            let line = try scanner.nextLine(
                in: input, from: offset, maxLength: budget, tooLong: .headerSectionTooLarge)
            switch line {
            case nil:
                return false
            case .end(let next):
                offset = next
                return true
            case .field(let name, let value, let next):
                fieldCount += 1
                guard fieldCount <= maxCount else { throw .tooManyHeaders }
                bytesUsed += next - offset
                let nameBytes = UnsafeRawBufferPointer(rebasing: input[name])
                if keepsLines {
                    // One allocation for a typical upstream section (200-300 bytes).
                    if lines.isEmpty { lines.reserveCapacity(384) }
                    lines.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[offset..<next]))
                    if let field = FramingFields.Field(name: nameBytes) {
                        framingFields.note(field, value: String(decoding: UnsafeRawBufferPointer(rebasing: input[value]), as: UTF8.self))
                    }
                    offset = next
                    continue
                }
                let valueText = String(decoding: UnsafeRawBufferPointer(rebasing: input[value]), as: UTF8.self)
                // One allocation for a typical section (an upstream answer has about eight
                // fields) instead of regrowing at 1, 2, 4 and 8.
                if headers.isEmpty { headers.reserveCapacity(12) }
                framingFields.note(name: nameBytes, value: valueText)
                headers.add(name: String(decoding: nameBytes, as: UTF8.self), value: valueText)
                offset = next
            }
        }
    }
}
