/// Why a Redis command got no reply, or a connection ended.
///
/// A struct over a private code, so new kinds never break callers; equality compares the kind
/// only, so callers and tests match on the static values (`error == .timedOut`) whatever the
/// detail. An error reply from Redis (`-WRONGTYPE …`) is not one of these: it is a reply, and
/// reaches its caller as a `RESPValue`.
package struct RedisClientError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable, Equatable {
        case timedOut, notConnected, tooManyPending, shutdown, cancelled
        case connectFailed, connectTimeout, connectionLost, unresponsive, protocolError, handshakeFailed
        case authenticationFailed, databaseRefused
    }

    private let code: Code
    /// Human text for logs.
    package let detail: String

    private init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    package var description: String { "Redis: \(detail)" }

    package static func == (lhs: RedisClientError, rhs: RedisClientError) -> Bool {
        lhs.code == rhs.code
    }

    /// The same kind of error with a message about this occurrence.
    func detailed(_ detail: String) -> RedisClientError {
        RedisClientError(code, detail)
    }

    /// The TCP connection to `url` could not be opened (refused, unreachable, name not resolved).
    package static func couldNotConnect(to url: RedisURL, _ detail: String) -> RedisClientError {
        connectFailed.detailed("Could not connect to Redis at \(url.host):\(url.port): \(detail)")
    }

    /// Whether the connect failed because the host name does not resolve (libuv names its
    /// resolver's errors EAI_*), which a change of REDIS_URL or of DNS fixes, not waiting.
    package var isHostNotFound: Bool {
        code == .connectFailed && detail.contains(": EAI_")
    }

    /// Whether reconnecting cannot help: the server refused our credentials or database, which
    /// only a change of configuration fixes. The connection stops trying and says so.
    package var isPermanent: Bool {
        code == .authenticationFailed || code == .databaseRefused
    }

    /// Whether the node itself is in doubt (not reachable, lost, not answering), not the one
    /// command: on a cluster its slots may have moved, and the map is read again.
    package var meansNodeTrouble: Bool {
        switch code {
        case .notConnected, .connectFailed, .connectTimeout, .connectionLost, .unresponsive, .timedOut: true
        default: false
        }
    }

    // MARK: One command

    package static let timedOut = RedisClientError(
        .timedOut, "No reply before the command's deadline.")
    package static let notConnected = RedisClientError(
        .notConnected, "Not connected to Redis (waiting to reconnect).")
    package static let tooManyPending = RedisClientError(
        .tooManyPending, "Too many commands are waiting for Redis on this connection.")
    package static let shutdown = RedisClientError(
        .shutdown, "The Redis connection is shutting down.")
    /// The caller's task was cancelled while it waited; its reply, if one comes, is dropped.
    package static let cancelled = RedisClientError(
        .cancelled, "The caller stopped waiting for Redis (its task was cancelled).")

    // MARK: The connection

    package static let connectFailed = RedisClientError(
        .connectFailed, "Could not connect to Redis.")
    package static let connectTimeout = RedisClientError(
        .connectTimeout, "Connecting to Redis (with its handshake) took longer than the connect timeout.")
    package static let connectionLost = RedisClientError(
        .connectionLost, "The connection to Redis was lost.")
    package static let unresponsive = RedisClientError(
        .unresponsive, "Redis left the oldest command unanswered for too long; the connection was closed.")
    package static let protocolError = RedisClientError(
        .protocolError, "Redis sent bytes that are not a valid reply, or a reply nothing asked for.")
    package static let handshakeFailed = RedisClientError(
        .handshakeFailed, "Redis answered the connection handshake with an error.")

    // MARK: Configuration (permanent)

    package static let authenticationFailed = RedisClientError(
        .authenticationFailed, "Redis refused the user name or password of REDIS_URL.")
    package static let databaseRefused = RedisClientError(
        .databaseRefused, "Redis refused to SELECT the database of REDIS_URL.")
}
