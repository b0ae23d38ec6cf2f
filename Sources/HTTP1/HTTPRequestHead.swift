/// A parsed request head with the protocol decisions (persistence, 100-continue,
/// body framing) already made, so the server does not re-derive them from headers.
/// `public` (its members `package`): the typed entry points (`HTTPServer.AttachedContext`) name it.
public struct HTTPRequestHead: Sendable, Equatable {
    package var method: HTTPMethod
    /// The request-target exactly as sent.
    package var target: String
    /// Origin-form path without the query; for absolute-form the URI's path ("/" if
    /// empty); "*" for asterisk-form; the authority for CONNECT.
    package var path: String
    /// Text after the first '?', without it; nil when there is no '?'.
    package var query: String?
    package var version: HTTPVersion
    package var headers: HTTPHeaders
    /// RFC 9112 §9.3: HTTP/1.1 persists unless "Connection: close"; HTTP/1.0 only
    /// with "Connection: keep-alive".
    package var keepAlive: Bool
    /// "Expect: 100-continue" on an HTTP/1.1 request.
    package var expectsContinue: Bool
    /// `.none`, `.contentLength(n)` or `.chunked`.
    package var framing: BodyFraming

    package init(
        method: HTTPMethod,
        target: String,
        path: String,
        query: String? = nil,
        version: HTTPVersion = .http1_1,
        headers: HTTPHeaders = HTTPHeaders(),
        keepAlive: Bool = true,
        expectsContinue: Bool = false,
        framing: BodyFraming = .none
    ) {
        self.method = method
        self.target = target
        self.path = path
        self.query = query
        self.version = version
        self.headers = headers
        self.keepAlive = keepAlive
        self.expectsContinue = expectsContinue
        self.framing = framing
    }
}
