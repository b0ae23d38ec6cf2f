/// A response status: the numeric code plus the reason phrase that goes on the
/// status line. The phrase is informational only (RFC 9112 §4), so callers that
/// branch on a status should compare `code`.
package struct HTTPStatus: Hashable, Sendable, CustomStringConvertible {
    package let code: Int
    package let reasonPhrase: String

    /// - Parameter reasonPhrase: `nil` picks the standard phrase for `code`
    ///   (empty for codes without one).
    package init(code: Int, reasonPhrase: String? = nil) {
        self.code = code
        self.reasonPhrase = reasonPhrase ?? HTTPStatus.standardReasonPhrase(for: code)
    }

    package var description: String { "\(code) \(reasonPhrase)" }

    package static let `continue` = HTTPStatus(code: 100)
    package static let switchingProtocols = HTTPStatus(code: 101)
    package static let ok = HTTPStatus(code: 200)
    package static let created = HTTPStatus(code: 201)
    package static let accepted = HTTPStatus(code: 202)
    package static let noContent = HTTPStatus(code: 204)
    package static let movedPermanently = HTTPStatus(code: 301)
    package static let found = HTTPStatus(code: 302)
    package static let seeOther = HTTPStatus(code: 303)
    package static let notModified = HTTPStatus(code: 304)
    package static let temporaryRedirect = HTTPStatus(code: 307)
    package static let permanentRedirect = HTTPStatus(code: 308)
    package static let badRequest = HTTPStatus(code: 400)
    package static let unauthorized = HTTPStatus(code: 401)
    package static let forbidden = HTTPStatus(code: 403)
    package static let notFound = HTTPStatus(code: 404)
    package static let methodNotAllowed = HTTPStatus(code: 405)
    package static let notAcceptable = HTTPStatus(code: 406)
    package static let requestTimeout = HTTPStatus(code: 408)
    package static let conflict = HTTPStatus(code: 409)
    package static let gone = HTTPStatus(code: 410)
    package static let lengthRequired = HTTPStatus(code: 411)
    package static let preconditionFailed = HTTPStatus(code: 412)
    package static let payloadTooLarge = HTTPStatus(code: 413)
    package static let uriTooLong = HTTPStatus(code: 414)
    package static let unsupportedMediaType = HTTPStatus(code: 415)
    package static let expectationFailed = HTTPStatus(code: 417)
    package static let unprocessableContent = HTTPStatus(code: 422)
    package static let tooManyRequests = HTTPStatus(code: 429)
    package static let requestHeaderFieldsTooLarge = HTTPStatus(code: 431)
    package static let internalServerError = HTTPStatus(code: 500)
    package static let notImplemented = HTTPStatus(code: 501)
    package static let badGateway = HTTPStatus(code: 502)
    package static let serviceUnavailable = HTTPStatus(code: 503)
    package static let gatewayTimeout = HTTPStatus(code: 504)
    package static let httpVersionNotSupported = HTTPStatus(code: 505)

    /// Phrases from the RFC 9110 §15 registry, so callers rarely need to spell them.
    package static func standardReasonPhrase(for code: Int) -> String {
        switch code {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 203: "Non-Authoritative Information"
        case 204: "No Content"
        case 205: "Reset Content"
        case 206: "Partial Content"
        case 300: "Multiple Choices"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 416: "Range Not Satisfiable"
        case 417: "Expectation Failed"
        case 421: "Misdirected Request"
        case 422: "Unprocessable Content"
        case 426: "Upgrade Required"
        case 428: "Precondition Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: ""
        }
    }
}
