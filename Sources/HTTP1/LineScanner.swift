/// Finds CRLF-terminated lines (status lines, chunk-size lines) in input that the
/// caller re-feeds until it is consumed. It remembers how many bytes of the pending
/// line were already checked, so a line arriving one byte at a time is scanned in
/// linear, not quadratic, time. Bare CR and bare LF are rejected while scanning.
struct LineScanner: Sendable {
    /// Bytes after the line start already known to contain no CR or LF.
    private var scannedCount = 0

    mutating func reset() {
        scannedCount = 0
    }

    /// Returns the content range (without CRLF) of the line starting at `start`, or
    /// nil when its terminator has not arrived yet. The caller must re-feed the input
    /// from `start` next time, since the remembered scan position is relative to it.
    ///
    /// - Throws: `tooLong` once the content exceeds `maxLength` bytes, even before
    ///   the terminator arrives; `.bareCR` / `.bareLineFeed` for broken line endings.
    mutating func nextLine(
        in input: UnsafeRawBufferPointer,
        from start: Int,
        maxLength: Int,
        tooLong: HTTPParseError
    ) throws(HTTPParseError) -> Range<Int>? {
        let end = input.count
        var index = start + scannedCount
        while index < end {
            let byte = input[index]
            if byte == ASCII.cr {
                guard index + 1 < end else { break }
                guard input[index + 1] == ASCII.lf else { throw .bareCR }
                scannedCount = 0
                return start..<index
            }
            if byte == ASCII.lf { throw .bareLineFeed }
            index += 1
            if index - start > maxLength { throw tooLong }
        }
        scannedCount = index - start
        return nil
    }
}
