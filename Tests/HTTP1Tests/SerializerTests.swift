import HTTP1
import Testing

@Suite("Serializers")
struct SerializerTests {
    @Test func responseHeadHasTheExactWireFormat() {
        var buffer: [UInt8] = []
        HTTPResponseSerializer.writeHead(
            status: .notFound, headers: ["Content-Length": "0", "Connection": "close"], into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self)
            == "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    }

    @Test func requestHeadHasTheExactWireFormat() {
        var buffer: [UInt8] = []
        HTTPRequestSerializer.writeHead(method: .get, target: "/p?q=1", headers: ["Host": "svc:8080"], into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "GET /p?q=1 HTTP/1.1\r\nHost: svc:8080\r\n\r\n")
    }

    /// The client's form: Host first (replacing the caller's), the caller's fields in order, a
    /// default User-Agent only when the caller sent none, the target in its two parts.
    @Test(arguments: [
        (HTTPHeaders([("Accept", "application/json")]), "Host: up:81\r\nAccept: application/json\r\nUser-Agent: pd\r\n"),
        (HTTPHeaders([("host", "evil"), ("User-Agent", "mine"), ("X-Request-ID", "r1")]), "Host: up:81\r\nUser-Agent: mine\r\nX-Request-ID: r1\r\n"),
    ])
    func clientRequestHeadHasHostFirstAndADefaultUserAgent(headers: HTTPHeaders, fields: String) {
        var buffer: [UInt8] = []
        HTTPRequestSerializer.writeHead(
            method: .get, basePath: "/api", path: "/products/p 1", host: "up:81", headers: headers, defaultUserAgent: "pd",
            into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "GET /api/products/p%201 HTTP/1.1\r\n" + fields + "\r\n")
    }

    /// Fields given in wire form follow the caller's headers, as they are, and come before the
    /// default User-Agent; a target with nothing to escape is copied as it is.
    @Test func clientRequestHeadWritesWireFormFieldsAfterTheHeaders() {
        var fields = FieldBlock()
        fields.add("X-Request-ID", "r1")
        fields.add("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
        var buffer: [UInt8] = []
        HTTPRequestSerializer.writeHead(
            method: .get, basePath: "/api", path: "/products/p1/reviews", host: "up:81", headers: ["Accept": "application/json"],
            fields: fields, defaultUserAgent: "pd", into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == """
            GET /api/products/p1/reviews HTTP/1.1\r\nHost: up:81\r\nAccept: application/json\r\nX-Request-ID: r1\r\n\
            traceparent: 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\r\nUser-Agent: pd\r\n\r\n
            """)
    }

    @Test(arguments: [
        HTTPStatus.ok, .noContent, .notModified, .payloadTooLarge, .unprocessableContent,
        .serviceUnavailable, HTTPStatus(code: 299, reasonPhrase: "Custom Thing"), HTTPStatus(code: 200, reasonPhrase: ""),
    ])
    func responseRoundTrip(_ status: HTTPStatus) throws {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/problem+json")
        headers.add(name: "Set-Cookie", value: "a=1")
        headers.add(name: "Set-Cookie", value: "b=2")
        headers.add(name: "Content-Length", value: "2")
        var buffer: [UInt8] = []
        HTTPResponseSerializer.writeHead(status: status, headers: headers, into: &buffer)
        buffer.append(contentsOf: "{}".utf8)
        let parsed = try parseResponses([buffer], requestMethods: [.get], closeAtEnd: false)
        #expect(parsed.count == 1)
        #expect(parsed.first?.head.status == status)
        #expect(parsed.first?.head.headers == headers)
        let expectedBody: [UInt8] = status.code == 204 || status.code == 304 ? [] : Array("{}".utf8)
        #expect(parsed.first?.body ?? [] == expectedBody)
    }

    @Test func requestRoundTrip() throws {
        let headers: HTTPHeaders = ["Host": "catalog:9000", "Accept": "application/json", "Content-Length": "3"]
        var buffer: [UInt8] = []
        HTTPRequestSerializer.writeHead(method: .post, target: "/products/42?fields=name", headers: headers, into: &buffer)
        buffer.append(contentsOf: "abc".utf8)
        let parsed = try parseRequests([buffer])
        #expect(parsed.count == 1)
        let head = try #require(parsed.first?.head)
        #expect(head.method == .post)
        #expect(head.path == "/products/42")
        #expect(head.query == "fields=name")
        #expect(head.headers == headers)
        #expect(parsed.first?.body == Array("abc".utf8))
    }

    @Test func callerDataCannotInjectLines() throws {
        var buffer: [UInt8] = []
        HTTPResponseSerializer.writeHead(
            status: .ok, headers: ["X-Evil": "a\r\nSet-Cookie: stolen", "Content-Length": "0"], into: &buffer)
        let parsed = try parseResponses([buffer], requestMethods: [.get], closeAtEnd: false)
        #expect(parsed.first?.head.headers.count == 2)
        #expect(parsed.first?.head.headers.contains("Set-Cookie") == false)
    }
}
