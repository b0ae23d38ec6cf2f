/// How an answer's body is coded, as its route tells the answer observer (the metrics of
/// compression, the log line's `encoding`). The server writes `body` as it is either way.
package enum ResponseCoding: Sendable, Equatable {
    /// The route does not negotiate a content coding.
    case fixed
    /// Negotiated, and sent as is.
    case identity
    /// Negotiated, and `body` is gzip; `identityBytes` is its length before compression (0 for
    /// an answer without a body, a `304`).
    case gzip(identityBytes: Int)
}
