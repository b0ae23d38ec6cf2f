/// Finds the CRLF that ends a reply's header line in input the caller re-feeds until it is
/// consumed.
///
/// It remembers how many bytes of the pending line were already checked, so a line arriving one
/// byte at a time is scanned in linear, not quadratic, time. A CR or LF inside a line is an
/// error: RESP lines cannot hold them, and accepting a bare LF would let two peers disagree on
/// where a reply ends.
struct ReplyLineScanner: Sendable {
    /// Bytes after the type byte already known to hold no CR or LF.
    private var scannedCount = 0

    mutating func reset() {
        scannedCount = 0
    }

    /// Returns the range of the line's content (after the type byte at `start`, before CRLF), or
    /// nil when its CRLF has not arrived yet. The caller must re-feed the input from `start`
    /// next time, since the remembered position is relative to it.
    ///
    /// - Throws: `.lineTooLong` as soon as the content exceeds `maxLength` bytes, even before
    ///   the CRLF arrives; `.invalidLineEnding` for a CR without LF or a bare LF.
    mutating func nextLine(
        in input: UnsafeRawBufferPointer, from start: Int, maxLength: Int
    ) throws(RESPParseError) -> Range<Int>? {
        let contentStart = start + 1
        let end = input.count
        var index = contentStart + scannedCount
        while index < end {
            let byte = input[index]
            if byte == ASCII.cr {
                guard index + 1 < end else { break }
                guard input[index + 1] == ASCII.lf else { throw .invalidLineEnding }
                scannedCount = 0
                return contentStart..<index
            }
            if byte == ASCII.lf { throw .invalidLineEnding }
            index += 1
            if index - contentStart > maxLength { throw .lineTooLong }
        }
        scannedCount = index - contentStart
        return nil
    }
}
