import HTTP1
import JSON

/// An RFC 9457 problem document: every error this service answers has this shape.
package struct ProblemDetails: Sendable, Equatable {
    package var status: HTTPStatus
    package var title: String
    package var detail: String
    package var type: String

    package init(status: HTTPStatus, title: String? = nil, detail: String, type: String = "about:blank") {
        self.status = status
        self.title = title ?? status.reasonPhrase
        self.detail = detail
        self.type = type
    }

    /// `{"type":…,"title":…,"status":…,"detail":…}` as bytes.
    package var json: [UInt8] {
        var writer = JSONBytesWriter(reservingCapacity: 96 + title.utf8.count + detail.utf8.count)
        writer.raw(#"{"type":"#)
        writer.string(type)
        writer.raw(#","title":"#)
        writer.string(title)
        writer.raw(#","status":"#)
        writer.int(status.code)
        writer.raw(#","detail":"#)
        writer.string(detail)
        writer.raw("}")
        return writer.release()
    }

    /// The answer carrying this problem, `application/problem+json`.
    package func response(headers extra: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var headers = extra
        headers.replaceOrAdd(name: "Content-Type", value: "application/problem+json")
        return HTTPResponse(status: status, headers: headers, body: json)
    }
}
