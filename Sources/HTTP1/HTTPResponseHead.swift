/// A parsed response head with framing and persistence already decided for the
/// request that produced it.
package struct HTTPResponseHead: Sendable, Equatable {
    package var status: HTTPStatus
    package var version: HTTPVersion
    /// The header fields as received; ``headers`` makes them into strings.
    package var fieldLines: HTTPFieldLines
    package var framing: BodyFraming
    /// False when the connection must not be reused (Connection: close, HTTP/1.0
    /// without keep-alive, or a close-delimited body).
    package var keepAlive: Bool

    package var headers: HTTPHeaders { fieldLines.headers }

    package init(
        status: HTTPStatus,
        version: HTTPVersion = .http1_1,
        fieldLines: HTTPFieldLines = HTTPFieldLines(),
        framing: BodyFraming,
        keepAlive: Bool
    ) {
        self.status = status
        self.version = version
        self.fieldLines = fieldLines
        self.framing = framing
        self.keepAlive = keepAlive
    }

    package init(status: HTTPStatus, version: HTTPVersion = .http1_1, headers: HTTPHeaders, framing: BodyFraming, keepAlive: Bool) {
        self.init(status: status, version: version, fieldLines: HTTPFieldLines(headers), framing: framing, keepAlive: keepAlive)
    }
}
