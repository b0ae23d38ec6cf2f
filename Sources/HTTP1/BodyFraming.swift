/// How the end of a message body is found (RFC 9112 §6.3). Deciding this once,
/// at head time, keeps the smuggling-sensitive logic in a single place.
package enum BodyFraming: Hashable, Sendable {
    /// The message has no body.
    case none
    /// Exactly this many body bytes follow the head.
    case contentLength(Int)
    /// The body uses the chunked transfer coding.
    case chunked
    /// The body runs until the peer closes the connection (responses only).
    case untilClose
}
