import HTTP1
import Redis

extension RedisURL {
    /// Parses and checks a URL such as `redis://:secret@cache.internal:6379/2`.
    ///
    /// In App, not beside `RedisURL` in Redis: reading a setting's text is App's part, as for every
    /// other setting, and the client would otherwise import HTTP1 for its percent-decoding alone.
    ///
    /// The scheme is `redis` (any case); `rediss` is refused because TLS is out of scope. The user
    /// information is `:password` (the classic `AUTH password`) or `user:password` (Redis 6 ACL),
    /// both percent-decoded so a password may hold `@`, `:` or `/`. The port defaults to 6379 and
    /// the database to 0; `maxDatabase` is the server's `databases` setting less one (15 unless
    /// the server was configured otherwise). Query strings and fragments are refused rather than
    /// ignored: a setting silently ignored is worse than one refused.
    package init(parsing text: String, maxDatabase: Int = 15) throws(RedisURLError) {
        guard let schemeEnd = text.firstRange(of: "://") else {
            throw RedisURLError.badScheme.detailed("'\(text)' has no scheme: expected redis://host[:port][/db].")
        }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme != "rediss" else { throw .tlsNotSupported }
        guard scheme == "redis" else {
            throw RedisURLError.badScheme.detailed("The scheme '\(scheme)' is not redis (expected redis://host[:port][/db]).")
        }
        let rest = text[schemeEnd.upperBound...]
        guard !rest.contains("?") && !rest.contains("#") else { throw .queryNotAllowed }

        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        var hostAndPort = rest[..<authorityEnd]
        var username: String?
        var password: String?
        if let at = hostAndPort.lastIndex(of: "@") {
            (username, password) = try Self.credentials(hostAndPort[..<at])
            hostAndPort = hostAndPort[hostAndPort.index(after: at)...]
        }
        let (host, port) = try Self.endpoint(hostAndPort)
        let database = try Self.database(rest[authorityEnd...], maxDatabase: maxDatabase)
        self.init(host: host, port: port, username: username, password: password, database: database)
    }

    /// `:password` or `user:password`, each percent-decoded.
    private static func credentials(_ userInfo: Substring) throws(RedisURLError) -> (String?, String) {
        guard let colon = userInfo.firstIndex(of: ":") else {
            throw RedisURLError.badUserInfo.detailed(
                "The part before '@' has no ':': write redis://:password@host, or redis://user:password@host for an ACL user.")
        }
        let user = try decoded(userInfo[..<colon], part: "user name")
        let password = try decoded(userInfo[userInfo.index(after: colon)...], part: "password")
        guard !password.isEmpty else {
            throw RedisURLError.badUserInfo.detailed("The password after ':' is empty: leave out the part before '@' to send no AUTH.")
        }
        return (user.isEmpty ? nil : user, password)
    }

    /// `text` percent-decoded; `part` names it in the error (never its content, which may be a
    /// password).
    private static func decoded(_ text: Substring, part: String) throws(RedisURLError) -> String {
        do {
            return try PercentDecoding.decode(text, plusIsSpace: false)
        } catch {
            switch error {
            case .malformedEscape:
                throw RedisURLError.badPercentEncoding.detailed("The \(part) holds a '%' not followed by two hexadecimal digits.")
            case .notUTF8:
                throw RedisURLError.badPercentEncoding.detailed("The decoded \(part) is not UTF-8.")
            }
        }
    }

    /// `host`, `host:port`, `[v6]` or `[v6]:port`.
    private static func endpoint(_ text: Substring) throws(RedisURLError) -> (String, Int) {
        let host: Substring
        let portText: Substring?
        if text.first == "[" {
            guard let close = text.firstIndex(of: "]") else {
                throw RedisURLError.badHost.detailed("The IPv6 address '\(text)' has no closing ']'.")
            }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            guard after.isEmpty || after.first == ":" else {
                throw RedisURLError.badHost.detailed("Only ':port' may follow the bracketed address, not '\(after)'.")
            }
            portText = after.isEmpty ? nil : after.dropFirst()
            guard !host.isEmpty else { throw .emptyHost }
            guard host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw RedisURLError.badHost.detailed("'\(host)' is not an IPv6 address.")
            }
        } else {
            guard text.firstIndex(of: ":") == text.lastIndex(of: ":") else {
                throw RedisURLError.badHost.detailed("'\(text)' holds several ':': write an IPv6 address in brackets, as [::1]:6379.")
            }
            let colon = text.firstIndex(of: ":")
            host = text[..<(colon ?? text.endIndex)]
            portText = colon.map { text[text.index(after: $0)...] }
            guard !host.isEmpty else { throw .emptyHost }
            guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_") }) else {
                throw RedisURLError.badHost.detailed(
                    "The host '\(host)' holds a character other than letters, digits, '-', '.' and '_' (bracket an IPv6 address).")
            }
        }
        guard let portText else { return (String(host), defaultPort) }
        guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
            let port = Int(portText), (1...65_535).contains(port)
        else {
            throw RedisURLError.badPort.detailed("The port '\(portText)' is not a decimal number from 1 to 65535.")
        }
        return (String(host), port)
    }

    /// Empty, `/`, or `/` followed by a number in `0...maxDatabase`.
    private static func database(_ path: Substring, maxDatabase: Int) throws(RedisURLError) -> Int {
        let number = path.dropFirst()
        guard !number.isEmpty else { return 0 }
        guard number.count <= 9, number.allSatisfy({ $0.isASCII && $0.isNumber }), let database = Int(number) else {
            throw RedisURLError.badDatabase.detailed("The path '\(path)' is not '/' followed by a database number.")
        }
        guard database <= maxDatabase else {
            throw RedisURLError.databaseOutOfRange.detailed("The database \(database) is outside 0...\(maxDatabase).")
        }
        return database
    }
}
