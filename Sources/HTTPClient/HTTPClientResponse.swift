import HTTP1

/// A complete upstream answer.
package struct HTTPClientResponse: Sendable {
    package let status: HTTPStatus
    /// The header fields as received; ``headers`` makes them into strings when asked.
    package let fieldLines: HTTPFieldLines
    package let body: [UInt8]

    package var headers: HTTPHeaders { fieldLines.headers }

    package init(status: HTTPStatus, fieldLines: HTTPFieldLines, body: [UInt8]) {
        self.status = status
        self.fieldLines = fieldLines
        self.body = body
    }

    package init(status: HTTPStatus, headers: HTTPHeaders, body: [UInt8]) {
        self.init(status: status, fieldLines: HTTPFieldLines(headers), body: body)
    }
}
