import HTTP1

/// A complete upstream answer.
public struct HTTPClientResponse: Sendable {
    public let status: HTTPStatus
    /// The header fields as received; ``headers`` makes them into strings when asked.
    public let fieldLines: HTTPFieldLines
    public let body: [UInt8]

    public var headers: HTTPHeaders { fieldLines.headers }

    public init(status: HTTPStatus, fieldLines: HTTPFieldLines, body: [UInt8]) {
        self.status = status
        self.fieldLines = fieldLines
        self.body = body
    }

    public init(status: HTTPStatus, headers: HTTPHeaders, body: [UInt8]) {
        self.init(status: status, fieldLines: HTTPFieldLines(headers), body: body)
    }
}
