/// Scans `method SP request-target SP HTTP-version CRLF` (RFC 9112 §3) one byte at
/// a time with a small state machine that survives between calls. Validating while
/// scanning means garbage (a TLS ClientHello, random bytes) is rejected at its first
/// byte instead of after buffering up to the length limit, and a request line that
/// trickles in byte by byte is still examined only once.
struct RequestLineScanner: Sendable {
    enum Line: Equatable {
        /// An empty line before the request line (tolerated per RFC 9112 §2.2).
        case empty(next: Int)
        case requestLine(method: Range<Int>, target: Range<Int>, version: HTTPVersion, next: Int)
    }

    private enum Part: Sendable {
        case method, target, version
    }

    private static let versionPrefix: StaticString = "HTTP/"

    private var part = Part.method
    private var scannedCount = 0
    /// Offsets from the line start of the first and second SP.
    private var firstSpace = 0
    private var secondSpace = 0
    private var major = 0
    private var minor = 0

    mutating func reset() {
        self = RequestLineScanner()
    }

    /// Returns the line starting at `start`, or nil when incomplete (re-feed from
    /// `start`). Content longer than `maxLength` → `.requestLineTooLong` (414).
    mutating func nextLine(
        in input: UnsafeRawBufferPointer,
        from start: Int,
        maxLength: Int
    ) throws(HTTPParseError) -> Line? {
        let end = input.count
        var index = start + scannedCount
        while index < end {
            let byte = input[index]
            if byte == ASCII.cr {
                guard index + 1 < end else { break }
                guard input[index + 1] == ASCII.lf else { throw .bareCR }
                return try finishLine(start: start, crIndex: index)
            }
            if byte == ASCII.lf { throw .bareLineFeed }
            let position = index - start
            switch part {
            case .method:
                if byte == ASCII.space {
                    guard position > 0 else { throw .malformedRequestLine }
                    firstSpace = position
                    part = .target
                } else if !ASCII.isTokenChar(byte) {
                    throw .invalidMethod
                }
            case .target:
                if byte == ASCII.space {
                    // A second SP right after the first means an empty target (double space).
                    guard position > firstSpace + 1 else { throw .malformedRequestLine }
                    secondSpace = position
                    part = .version
                } else if !ASCII.isVisible(byte) {
                    throw .invalidTarget
                }
            case .version:
                try acceptVersionByte(byte, at: position - secondSpace - 1)
            }
            index += 1
            if index - start > maxLength { throw .requestLineTooLong }
        }
        scannedCount = index - start
        return nil
    }

    /// Checks the version incrementally against `HTTP/DIGIT.DIGIT`.
    private mutating func acceptVersionByte(_ byte: UInt8, at position: Int) throws(HTTPParseError) {
        switch position {
        case 0..<5:
            let expected = Self.versionPrefix.withUTF8Buffer { $0[position] }
            guard byte == expected else { throw .invalidVersion }
        case 5:
            guard ASCII.isDigit(byte) else { throw .invalidVersion }
            major = Int(byte &- UInt8(ascii: "0"))
        case 6:
            guard byte == ASCII.dot else { throw .invalidVersion }
        case 7:
            guard ASCII.isDigit(byte) else { throw .invalidVersion }
            minor = Int(byte &- UInt8(ascii: "0"))
        default:
            throw .invalidVersion
        }
    }

    private mutating func finishLine(start: Int, crIndex: Int) throws(HTTPParseError) -> Line {
        let length = crIndex - start
        let finished = self
        reset()
        switch finished.part {
        case .method:
            guard length == 0 else { throw .malformedRequestLine }
            return .empty(next: crIndex + 2)
        case .target:
            throw .malformedRequestLine
        case .version:
            guard length - finished.secondSpace - 1 == 8 else { throw .invalidVersion }
            guard finished.major == 1, finished.minor <= 1 else { throw .unsupportedVersion }
            return .requestLine(
                method: start..<(start + finished.firstSpace),
                target: (start + finished.firstSpace + 1)..<(start + finished.secondSpace),
                version: HTTPVersion(major: finished.major, minor: finished.minor),
                next: crIndex + 2)
        }
    }
}
