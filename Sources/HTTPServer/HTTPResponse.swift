import HTTP1

/// What a handler answers. The server adds `Content-Length`, `Date` and `Connection`, and drops
/// the body of a HEAD answer while keeping its length.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    /// More fields, already in wire form, written after `headers`: how hot paths answer.
    public var fields = FieldBlock()
    public var body: [UInt8]

    public init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), fields: FieldBlock = FieldBlock(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.fields = fields
        self.body = body
    }

    /// A JSON answer.
    public static func json(_ status: HTTPStatus = .ok, _ body: [UInt8], headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var headers = headers
        headers.replaceOrAdd(name: "Content-Type", value: "application/json")
        return HTTPResponse(status: status, headers: headers, body: body)
    }

    /// A short plain-text answer.
    public static func text(_ status: HTTPStatus, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }
}
