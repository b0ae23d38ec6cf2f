import HTTP1

/// A complete upstream answer.
public struct HTTPClientResponse: Sendable {
    public let status: HTTPStatus
    public let headers: HTTPHeaders
    public let body: [UInt8]

    public init(status: HTTPStatus, headers: HTTPHeaders, body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
