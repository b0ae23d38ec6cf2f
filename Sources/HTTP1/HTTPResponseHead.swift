/// A parsed response head with framing and persistence already decided for the
/// request that produced it.
public struct HTTPResponseHead: Sendable, Equatable {
    public var status: HTTPStatus
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    public var framing: BodyFraming
    /// False when the connection must not be reused (Connection: close, HTTP/1.0
    /// without keep-alive, or a close-delimited body).
    public var keepAlive: Bool

    public init(
        status: HTTPStatus,
        version: HTTPVersion = .http1_1,
        headers: HTTPHeaders = HTTPHeaders(),
        framing: BodyFraming,
        keepAlive: Bool
    ) {
        self.status = status
        self.version = version
        self.headers = headers
        self.framing = framing
        self.keepAlive = keepAlive
    }
}
