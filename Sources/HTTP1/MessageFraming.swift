/// The Content-Length / Transfer-Encoding rules of RFC 9112 §6 in one place,
/// because disagreement between two parsers about where a body ends is exactly
/// what request smuggling exploits. When in doubt, these functions reject.
enum MessageFraming {
    /// The declared Content-Length, or nil when absent.
    ///
    /// Every line and every list element must be plain decimal digits (no sign,
    /// no whitespace inside, no overflow). Repeated values are accepted only when
    /// identical, both as separate lines and in the list form "5, 5" (RFC 9110
    /// §8.6); differing values → `.conflictingContentLength`; an empty element → invalid.
    static func contentLength(in headers: HTTPHeaders) throws(HTTPParseError) -> Int? {
        var result: Int?
        for (name, value) in headers where ASCII.equalsIgnoringCase(name.utf8, "content-length".utf8) {
            try accumulateContentLength(value, into: &result)
        }
        return result
    }

    /// The same, taking the value from `noted` when the section has one Content-Length line.
    static func contentLength(in headers: HTTPHeaders, noted: FramingFields) throws(HTTPParseError) -> Int? {
        guard noted.contentLengthCount == 1, let value = noted.contentLength else {
            return noted.contentLengthCount == 0 ? nil : try contentLength(in: headers)
        }
        var result: Int?
        try accumulateContentLength(value, into: &result)
        return result
    }

    private static func accumulateContentLength(_ value: String, into result: inout Int?) throws(HTTPParseError) {
        var bytes = Substring(value).utf8[...]
        while true {
            let comma = bytes.firstIndex(of: ASCII.comma) ?? bytes.endIndex
            let length = try parseDecimal(ASCII.trimmingWhitespace(bytes[bytes.startIndex..<comma]))
            if let previous = result, previous != length { throw .conflictingContentLength }
            result = length
            guard comma < bytes.endIndex else { break }
            bytes = bytes[bytes.index(after: comma)...]
        }
    }

    private static func parseDecimal(_ bytes: Substring.UTF8View) throws(HTTPParseError) -> Int {
        guard !bytes.isEmpty else { throw .invalidContentLength }
        var value = 0
        for byte in bytes {
            guard ASCII.isDigit(byte) else { throw .invalidContentLength }
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = shifted.addingReportingOverflow(Int(byte &- UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { throw .invalidContentLength }
            value = sum
        }
        return value
    }

    /// Validates Transfer-Encoding; returns true when present (and then it is
    /// exactly `chunked`), false when absent.
    ///
    /// - `chunked` not last, or applied twice, or with parameters → 400.
    /// - any other coding (gzip, "chunkedx", "gzip, chunked") → 501: we cannot
    ///   decode it, and passing encoded bytes on as the body would be wrong.
    static func isChunked(_ headers: HTTPHeaders) throws(HTTPParseError) -> Bool {
        var present = false
        var sawChunked = false
        var lastIsChunked = false
        var sawOtherCoding = false
        for (name, value) in headers where ASCII.equalsIgnoringCase(name.utf8, "transfer-encoding".utf8) {
            present = true
            var elementCount = 0
            for element in CommaSeparatedElements(value) {
                elementCount += 1
                let semicolon = element.firstIndex(of: ASCII.semicolon)
                let coding = ASCII.trimmingWhitespace(element[element.startIndex..<(semicolon ?? element.endIndex)])
                guard ASCII.isToken(coding) else { throw .invalidTransferEncoding }
                if ASCII.equalsIgnoringCase(coding, "chunked".utf8) {
                    guard !sawChunked, semicolon == nil else { throw .invalidTransferEncoding }
                    sawChunked = true
                    lastIsChunked = true
                } else {
                    sawOtherCoding = true
                    lastIsChunked = false
                }
            }
            guard elementCount > 0 else { throw .invalidTransferEncoding }
        }
        guard present else { return false }
        guard !sawChunked || lastIsChunked else { throw .invalidTransferEncoding }
        guard !sawOtherCoding else { throw .unsupportedTransferCoding }
        return true
    }

    /// Persistence per RFC 9112 §9.3: "close" always wins; HTTP/1.1 is persistent
    /// by default; HTTP/1.0 only with an explicit "keep-alive". Reads the one Connection
    /// value `noted` kept, and scans the section only when there are several.
    static func keepAlive(version: HTTPVersion, headers: HTTPHeaders, noted: FramingFields) -> Bool {
        switch (noted.connectionCount, noted.connection) {
        case (0, _):
            return version == .http1_1
        case (1, let value?):
            if hasToken("close", in: value) { return false }
            return version == .http1_1 || hasToken("keep-alive", in: value)
        default:
            if headers.containsToken("close", in: "connection") { return false }
            return version == .http1_1 || headers.containsToken("keep-alive", in: "connection")
        }
    }

    private static func hasToken(_ token: String, in value: String) -> Bool {
        CommaSeparatedElements(value).contains { ASCII.equalsIgnoringCase($0, token.utf8) }
    }
}
