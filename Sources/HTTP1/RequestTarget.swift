/// The routing-relevant parts of a request-target (RFC 9112 §3.2), derived once at
/// request-line time so each form is checked against the method that allows it.
struct RequestTarget: Sendable, Equatable {
    var path: String
    var query: String?

    /// - Parameter bytes: the target, already known to be visible ASCII.
    static func parse(_ bytes: UnsafeRawBufferPointer, method: HTTPMethod) throws(HTTPParseError) -> RequestTarget {
        // A fragment is never sent on the wire (RFC 9112 §3.2), so '#' is suspicious.
        guard !bytes.contains(ASCII.hash) else { throw .invalidTarget }
        if method == .connect {
            return try parseAuthorityForm(bytes)
        }
        if bytes[0] == ASCII.slash {
            return splitPathAndQuery(bytes[...])
        }
        if bytes.count == 1 && bytes[0] == ASCII.asterisk {
            guard method == .options else { throw .invalidTarget }
            return RequestTarget(path: "*", query: nil)
        }
        return try parseAbsoluteForm(bytes)
    }

    /// `authority-form = uri-host ":" port`, only for CONNECT; the path is the authority.
    private static func parseAuthorityForm(_ bytes: UnsafeRawBufferPointer) throws(HTTPParseError) -> RequestTarget {
        guard let colon = bytes.lastIndex(of: ASCII.colon), colon > 0, colon + 1 < bytes.count,
              bytes[(colon + 1)...].allSatisfy(ASCII.isDigit),
              HostValidator.isValidAuthority(bytes[..<colon])
        else { throw .invalidTarget }
        return RequestTarget(path: string(bytes[...]), query: nil)
    }

    /// `absolute-form`: only http and https URIs are accepted; the path is extracted.
    private static func parseAbsoluteForm(_ bytes: UnsafeRawBufferPointer) throws(HTTPParseError) -> RequestTarget {
        guard let schemeEnd = bytes.firstIndex(of: ASCII.colon) else { throw .invalidTarget }
        let scheme = bytes[..<schemeEnd]
        guard ASCII.equalsIgnoringCase(scheme, "http".utf8) || ASCII.equalsIgnoringCase(scheme, "https".utf8)
        else { throw .invalidTarget }
        let afterScheme = schemeEnd + 1
        guard bytes.count >= afterScheme + 2, bytes[afterScheme] == ASCII.slash, bytes[afterScheme + 1] == ASCII.slash
        else { throw .invalidTarget }
        let authorityStart = afterScheme + 2
        var authorityEnd = authorityStart
        while authorityEnd < bytes.count, bytes[authorityEnd] != ASCII.slash, bytes[authorityEnd] != ASCII.question {
            authorityEnd += 1
        }
        let authority = bytes[authorityStart..<authorityEnd]
        // userinfo ("user@host") is deprecated for http(s) and a phishing vector.
        guard !authority.isEmpty, !authority.contains(UInt8(ascii: "@")),
              HostValidator.isValidAuthority(authority)
        else { throw .invalidTarget }
        var target = splitPathAndQuery(bytes[authorityEnd...])
        if target.path.isEmpty { target.path = "/" }
        return target
    }

    private static func splitPathAndQuery(_ bytes: Slice<UnsafeRawBufferPointer>) -> RequestTarget {
        guard let question = bytes.firstIndex(of: ASCII.question) else {
            return RequestTarget(path: string(bytes), query: nil)
        }
        return RequestTarget(
            path: string(bytes[bytes.startIndex..<question]),
            query: string(bytes[(question + 1)..<bytes.endIndex]))
    }

    private static func string(_ bytes: Slice<UnsafeRawBufferPointer>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes), as: UTF8.self)
    }
}
