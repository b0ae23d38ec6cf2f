/// Where a Redis server is and how to log in to it: `redis://[[user]:password@]host[:port][/db]`.
///
/// Parsed once at start-up, from `REDIS_URL` by App (its `init(parsing:maxDatabase:)`), so a bad
/// setting stops the service with a precise message instead of failing on every command. The
/// password is kept for the handshake but never printed: `description` masks it, since the URL
/// appears in the start-up log.
package struct RedisURL: Sendable, Equatable, CustomStringConvertible {
    /// Redis's registered port, used when the URL names none.
    package static let defaultPort = 6379

    /// A host name or address, IPv6 without its brackets.
    package var host: String
    package var port: Int
    /// A Redis 6 ACL user; `nil` logs in as the default user (or not at all, without a password).
    package var username: String?
    /// Percent-decoded; `nil` sends no `AUTH`.
    package var password: String?
    /// The logical database `SELECT`ed after connecting; 0 needs no `SELECT`.
    package var database: Int

    package init(host: String, port: Int = RedisURL.defaultPort, username: String? = nil, password: String? = nil, database: Int = 0) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
    }

    package var description: String {
        var text = "redis://"
        if password != nil {
            text += "\(username ?? ""):***@"
        }
        text += host.contains(":") ? "[\(host)]" : host
        text += ":\(port)"
        if database != 0 { text += "/\(database)" }
        return text
    }
}
