/// Where upstream requests go: `http://host:port` plus an optional base path that every request
/// target is appended to.
package struct Origin: Hashable, Sendable, CustomStringConvertible {
    package let host: String
    package let port: Int
    /// "" or a path without a trailing slash, e.g. "/api".
    package let basePath: String
    /// The `Host` header value, made once: every request sends it.
    package let authority: String

    package init(host: String, port: Int, basePath: String = "") {
        self.host = host
        self.port = port
        self.basePath = basePath
        authority = Self.authority(host: host, port: port)
    }

    /// Parses `http://host[:port][/base]`. Only `http` is supported (no TLS).
    package init(url: String) throws(HTTPClientError) {
        guard url.hasPrefix("http://") else {
            throw url.hasPrefix("https://") ? .unsupportedURL("https is not supported; use http or terminate TLS elsewhere") : .unsupportedURL("\(url) is not an http:// URL")
        }
        let rest = url.dropFirst("http://".count)
        if rest.contains("?") || rest.contains("#") {
            throw .unsupportedURL("\(url): a query or fragment is not supported; give a base URL such as http://host:8080/api")
        }
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var path = String(rest[authorityEnd...])
        while path.hasSuffix("/") { path.removeLast() }
        var host = Substring(authority)
        var port = 80
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .unsupportedURL("\(url): unterminated IPv6 address") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") {
                guard let parsed = Int(after.dropFirst()), (1...65535).contains(parsed) else { throw .unsupportedURL("\(url): bad port") }
                port = parsed
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            guard let parsed = Int(authority[authority.index(after: colon)...]), (1...65535).contains(parsed) else {
                throw .unsupportedURL("\(url): bad port")
            }
            port = parsed
        }
        guard !host.isEmpty, !host.contains("@") else { throw .unsupportedURL("\(url): missing or invalid host") }
        self.init(host: String(host), port: port, basePath: path)
    }

    private static func authority(host: String, port: Int) -> String {
        let name = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
        return port == 80 ? name : "\(name):\(port)"
    }

    package var description: String { "http://\(authority)\(basePath)" }
}
