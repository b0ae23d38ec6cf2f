/// Scans one field line (`field-name ":" OWS field-value OWS CRLF`, RFC 9112 §5)
/// and validates every byte as it is seen, so malformed headers are rejected as
/// early as possible and no byte is inspected twice even when the line arrives in
/// pieces (the scan position and state survive between calls).
struct FieldLineScanner: Sendable {
    enum Line: Equatable {
        /// The blank line ending the section; `next` is the offset after its CRLF.
        case end(next: Int)
        /// A field; the value range is already trimmed of OWS.
        case field(name: Range<Int>, value: Range<Int>, next: Int)
    }

    private enum Part: Sendable {
        case lineStart, name, value
    }

    private var part = Part.lineStart
    /// Bytes after the line start already validated.
    private var scannedCount = 0
    /// Offset of the colon from the line start, once seen.
    private var colonOffset = 0

    mutating func reset() {
        self = FieldLineScanner()
    }

    /// Returns the line starting at `start`, or nil when it is incomplete (re-feed
    /// from `start`). Throws as soon as a forbidden byte appears or the line content
    /// exceeds `maxLength`.
    mutating func nextLine(
        in input: UnsafeRawBufferPointer,
        from start: Int,
        maxLength: Int,
        tooLong: HTTPParseError
    ) throws(HTTPParseError) -> Line? {
        let end = input.count
        // The latest offset of a line's CR: a content byte found there makes the line too long.
        // (`maxLength` may be `.max`: no sum that could overflow.)
        let contentEnd = maxLength < end - start ? start + maxLength : end
        let runEnd = min(end, contentEnd + 1)
        var index = start + scannedCount
        while index < end {
            // Most bytes of a line continue a name or a value: they skip the state machine.
            switch part {
            case .name:
                while index < runEnd, ASCII.isTokenChar(input[index]) { index += 1 }
            case .value:
                while index < runEnd, ASCII.isFieldValueByte(input[index]) { index += 1 }
            case .lineStart:
                break
            }
            if index > contentEnd { throw tooLong }
            guard index < end else { break }
            let byte = input[index]
            if byte == ASCII.cr {
                guard index + 1 < end else { break }
                guard input[index + 1] == ASCII.lf else { throw .bareCR }
                return try finishLine(in: input, start: start, crIndex: index)
            }
            if byte == ASCII.lf { throw .bareLineFeed }
            switch part {
            case .lineStart:
                if ASCII.isWhitespace(byte) { throw .obsoleteLineFolding }
                guard ASCII.isTokenChar(byte) else { throw .invalidHeaderName }
                part = .name
            case .name:
                if byte == ASCII.colon {
                    colonOffset = index - start
                    part = .value
                } else if ASCII.isWhitespace(byte) {
                    throw .whitespaceBeforeColon
                } else if !ASCII.isTokenChar(byte) {
                    throw .invalidHeaderName
                }
            case .value:
                guard ASCII.isFieldValueByte(byte) else { throw .invalidHeaderValue }
            }
            index += 1
            if index - start > maxLength { throw tooLong }
        }
        scannedCount = index - start
        return nil
    }

    private mutating func finishLine(
        in input: UnsafeRawBufferPointer,
        start: Int,
        crIndex: Int
    ) throws(HTTPParseError) -> Line {
        let finishedPart = part
        let colon = start + colonOffset
        reset()
        switch finishedPart {
        case .lineStart:
            return .end(next: crIndex + 2)
        case .name:
            throw .missingHeaderColon
        case .value:
            var valueStart = colon + 1
            var valueEnd = crIndex
            while valueStart < valueEnd, ASCII.isWhitespace(input[valueStart]) { valueStart += 1 }
            while valueEnd > valueStart, ASCII.isWhitespace(input[valueEnd - 1]) { valueEnd -= 1 }
            return .field(name: start..<colon, value: valueStart..<valueEnd, next: crIndex + 2)
        }
    }
}
