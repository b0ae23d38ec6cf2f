import EventLoop
import HTTP1

/// Why an upstream request failed. A struct over a code, so new cases never break callers.
package struct HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Code: Sendable, Equatable {
        /// No connection could be made (refused, unreachable, name not resolved).
        case connectFailed
        /// The connection did not open within the connect timeout.
        case connectTimeout
        /// No complete answer within the request's deadline.
        case timedOut
        /// The peer reset or closed the connection before the answer was complete.
        case connectionReset
        /// The answer was not valid HTTP/1.1 or exceeded a limit.
        case malformedResponse
        /// The caller's task was cancelled; the connection was closed.
        case cancelled
        /// The URL cannot be used.
        case unsupportedURL
        /// The client is shutting down.
        case shutdown
        /// Never sent: it waited for a connection when its pool's queue was failed
        /// (`HTTPClient.failQueued`), as when the upstream's circuit breaker opens.
        case dropped
    }

    package let code: Code
    package let detail: String

    package init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    package var description: String { "\(code): \(detail)" }

    package static func == (lhs: HTTPClientError, rhs: HTTPClientError) -> Bool { lhs.code == rhs.code }

    static func connectFailed(_ error: UVError) -> HTTPClientError { HTTPClientError(.connectFailed, error.description) }
    static let connectTimeout = HTTPClientError(.connectTimeout, "connect timed out")
    static let timedOut = HTTPClientError(.timedOut, "no complete answer before the deadline")
    static func reset(_ detail: String) -> HTTPClientError { HTTPClientError(.connectionReset, detail) }
    static func malformed(_ error: HTTPParseError) -> HTTPClientError { HTTPClientError(.malformedResponse, error.description) }
    static let cancelled = HTTPClientError(.cancelled, "the request was cancelled")
    static func unsupportedURL(_ detail: String) -> HTTPClientError { HTTPClientError(.unsupportedURL, detail) }
    static let shutdown = HTTPClientError(.shutdown, "the client is shutting down")
    static func dropped(pool: String) -> HTTPClientError {
        HTTPClientError(.dropped, "the circuit breaker of upstream \"\(pool)\" opened while this request waited for a connection")
    }
}
