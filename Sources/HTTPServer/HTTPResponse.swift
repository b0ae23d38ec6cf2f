import HTTP1

/// What a handler answers. The server adds `Content-Length`, `Date` and `Connection`, and drops
/// the body of a HEAD answer while keeping its length.
/// `public` (its members `package`): the typed entry points (`AttachedContext`) name it.
public struct HTTPResponse: Sendable {
    package var status: HTTPStatus
    package var headers: HTTPHeaders
    /// More fields, already in wire form, written after `headers`: how hot paths answer.
    package var fields = FieldBlock()
    /// A slice, so that a page kept as part of a larger buffer (read from the shared cache) is
    /// answered from it without a copy.
    package var body: ArraySlice<UInt8>
    /// How `body` is coded, for the answer observer; the route that negotiates sets it.
    package var coding: ResponseCoding = .fixed

    package init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), fields: FieldBlock = FieldBlock(), body: [UInt8] = []) {
        self.init(status: status, headers: headers, fields: fields, body: body[...])
    }

    package init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), fields: FieldBlock = FieldBlock(), body: ArraySlice<UInt8>) {
        self.status = status
        self.headers = headers
        self.fields = fields
        self.body = body
    }

    /// A JSON answer.
    package static func json(_ status: HTTPStatus = .ok, _ body: [UInt8], headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var headers = headers
        headers.replaceOrAdd(name: "Content-Type", value: "application/json")
        return HTTPResponse(status: status, headers: headers, body: body)
    }

    /// A short plain-text answer.
    package static func text(_ status: HTTPStatus, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }
}

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
