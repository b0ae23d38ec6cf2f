/// Why a Redis URL cannot be used.
///
/// Each message names the part at fault and what would be accepted, so a start-up log line is
/// enough to fix the setting. No message ever repeats the password. Equality compares the kind
/// only, so callers and tests match on the static values whatever the detail.
package struct RedisURLError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable, Equatable {
        case badScheme, tlsNotSupported
        case badUserInfo, badPercentEncoding
        case emptyHost, badHost, badPort
        case badDatabase, databaseOutOfRange
        case queryNotAllowed
    }

    private let code: Code
    /// Human text for logs.
    package let detail: String

    private init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    package var description: String { "Redis URL: \(detail)" }

    package static func == (lhs: RedisURLError, rhs: RedisURLError) -> Bool {
        lhs.code == rhs.code
    }

    /// The same kind of error with a message about this URL.
    func detailed(_ detail: String) -> RedisURLError {
        RedisURLError(code, detail)
    }

    package static let badScheme = RedisURLError(
        .badScheme, "The URL must begin with redis:// (redis://[[user]:password@]host[:port][/db]).")
    package static let tlsNotSupported = RedisURLError(
        .tlsNotSupported, "rediss:// (TLS) is not supported: this client speaks plain TCP only; use redis:// on a trusted network.")
    package static let badUserInfo = RedisURLError(
        .badUserInfo, "The part before '@' must be ':password' or 'user:password'.")
    package static let badPercentEncoding = RedisURLError(
        .badPercentEncoding, "A '%' must be followed by two hexadecimal digits, and the decoded text must be UTF-8.")
    package static let emptyHost = RedisURLError(
        .emptyHost, "The URL names no host.")
    package static let badHost = RedisURLError(
        .badHost, "The host must be a name, an IPv4 address or a bracketed IPv6 address.")
    package static let badPort = RedisURLError(
        .badPort, "The port must be a decimal number from 1 to 65535.")
    package static let badDatabase = RedisURLError(
        .badDatabase, "The path must be empty or '/' followed by a database number.")
    package static let databaseOutOfRange = RedisURLError(
        .databaseOutOfRange, "The database number is outside the range the server is configured for.")
    package static let queryNotAllowed = RedisURLError(
        .queryNotAllowed, "Query strings and fragments are not allowed: every setting has a variable of its own.")
}
