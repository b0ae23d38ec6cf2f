/// Decodes the chunked transfer coding (RFC 9112 §7.1) in place: it never copies
/// payload, it reports which ranges of the caller's input are payload. Sizes are
/// bounded (no overflow, total ≤ maxBodyBytes) and extensions are validated but
/// ignored. Trailers are parsed with the same rules and budget as header fields.
struct ChunkedDecoder: Sendable {
    private enum State: Sendable, Equatable {
        case sizeLine
        case data(remaining: Int)
        case dataTerminator
        case trailers
        case done
    }

    /// Bound on a chunk-size line including extensions; real clients send a few bytes.
    static let maxSizeLineBytes = 4096

    private var state = State.sizeLine
    private var sizeLineScanner = LineScanner()
    private var trailerReader: HeaderSectionReader
    private var decodedTotal = 0
    private let maxBodyBytes: Int

    /// - Parameters: headerBytesUsed / headerFieldCount: what the header section
    ///   already spent, so trailers share the header limits.
    init(limits: HTTPLimits, headerBytesUsed: Int, headerFieldCount: Int) {
        self.maxBodyBytes = limits.maxBodyBytes
        self.trailerReader = HeaderSectionReader(
            limits: limits, bytesUsed: headerBytesUsed, fieldCount: headerFieldCount)
    }

    var trailers: HTTPHeaders { trailerReader.headers }
    var isComplete: Bool { state == .done }

    /// Decodes from `start`; returns the step and the offset up to which input is consumed.
    mutating func decode(_ input: UnsafeRawBufferPointer, from start: Int) throws(HTTPParseError) -> (BodyStep, Int) {
        var offset = start
        while true {
            switch state {
            case .sizeLine:
                guard let line = try sizeLineScanner.nextLine(
                    in: input, from: offset, maxLength: Self.maxSizeLineBytes, tooLong: .invalidChunkExtension)
                else { return (.needMoreData, offset) }
                let size = try Self.parseSizeLine(UnsafeRawBufferPointer(rebasing: input[line]))
                offset = line.upperBound + 2
                if size == 0 {
                    state = .trailers
                } else {
                    guard size <= maxBodyBytes - decodedTotal else { throw .bodyTooLarge }
                    decodedTotal += size
                    state = .data(remaining: size)
                }
            case .data(let remaining):
                let available = input.count - offset
                guard available > 0 else { return (.needMoreData, offset) }
                let taken = min(available, remaining)
                state = taken == remaining ? .dataTerminator : .data(remaining: remaining - taken)
                return (.body(offset..<(offset + taken)), offset + taken)
            case .dataTerminator:
                guard offset < input.count else { return (.needMoreData, offset) }
                guard input[offset] == ASCII.cr else { throw .invalidChunkFraming }
                // Leave the CR unconsumed until its LF arrives, so it is checked again.
                guard offset + 1 < input.count else { return (.needMoreData, offset) }
                guard input[offset + 1] == ASCII.lf else { throw .invalidChunkFraming }
                offset += 2
                state = .sizeLine
            case .trailers:
                guard try trailerReader.read(input, offset: &offset) else { return (.needMoreData, offset) }
                state = .done
                return (.end, offset)
            case .done:
                return (.end, offset)
            }
        }
    }

    /// `chunk-size [ chunk-ext ]`: 1+ hex digits with no sign or inner whitespace,
    /// then `*( BWS ";" BWS ext-name [ BWS "=" BWS ext-val ] )`.
    static func parseSizeLine(_ line: UnsafeRawBufferPointer) throws(HTTPParseError) -> Int {
        var index = 0
        var size = 0
        while index < line.count, let digit = ASCII.hexValue(line[index]) {
            guard size <= Int.max >> 4 else { throw .invalidChunkSize }
            size = size << 4 | digit
            index += 1
        }
        guard index > 0 else { throw .invalidChunkSize }
        // Anything after the digits must start an extension; "5 " or "5x" is a bad size.
        var probe = index
        while probe < line.count, ASCII.isWhitespace(line[probe]) { probe += 1 }
        guard index == line.count || (probe < line.count && line[probe] == ASCII.semicolon) else {
            throw .invalidChunkSize
        }
        try validateExtensions(line, from: index)
        return size
    }

    private static func validateExtensions(_ line: UnsafeRawBufferPointer, from start: Int) throws(HTTPParseError) {
        var index = start
        func skipWhitespace() {
            while index < line.count, ASCII.isWhitespace(line[index]) { index += 1 }
        }
        func skipToken() throws(HTTPParseError) {
            let tokenStart = index
            while index < line.count, ASCII.isTokenChar(line[index]) { index += 1 }
            guard index > tokenStart else { throw .invalidChunkExtension }
        }
        while index < line.count {
            skipWhitespace()
            guard index < line.count, line[index] == ASCII.semicolon else { throw .invalidChunkExtension }
            index += 1
            skipWhitespace()
            try skipToken()
            skipWhitespace()
            guard index < line.count, line[index] == ASCII.equals else { continue }
            index += 1
            skipWhitespace()
            if index < line.count, line[index] == ASCII.quote {
                index = try endOfQuotedString(line, openingQuote: index)
            } else {
                try skipToken()
            }
        }
    }

    /// Returns the offset after the closing quote of a quoted-string.
    private static func endOfQuotedString(_ line: UnsafeRawBufferPointer, openingQuote: Int) throws(HTTPParseError) -> Int {
        var index = openingQuote + 1
        while index < line.count {
            let byte = line[index]
            if byte == ASCII.quote { return index + 1 }
            if byte == ASCII.backslash {
                index += 1
                guard index < line.count, ASCII.isFieldValueByte(line[index]) else { throw .invalidChunkExtension }
            } else if !ASCII.isFieldValueByte(byte) {
                throw .invalidChunkExtension
            }
            index += 1
        }
        throw .invalidChunkExtension
    }
}
