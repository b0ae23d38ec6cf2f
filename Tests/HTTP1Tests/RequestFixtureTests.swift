import HTTP1
import Testing

/// What one request in a fixture must parse to.
struct ExpectedRequest: Sendable {
    var method: HTTPMethod
    var target: String
    var path: String
    var query: String?
    var version: HTTPVersion = .http1_1
    var headers: [(String, String)]
    var keepAlive = true
    var expectsContinue = false
    var framing: BodyFraming = .none
    var body = ""
    var trailers: [(String, String)] = []

    func matches(_ parsed: ParsedRequest) {
        let head = parsed.head
        #expect(head.method == method)
        #expect(head.target == target)
        #expect(head.path == path)
        #expect(head.query == query)
        #expect(head.version == version)
        #expect(head.headers == HTTPHeaders(headers.map { (name: $0.0, value: $0.1) }))
        #expect(head.keepAlive == keepAlive)
        #expect(head.expectsContinue == expectsContinue)
        #expect(head.framing == framing)
        #expect(parsed.body == Array(body.utf8))
        #expect(parsed.trailers == HTTPHeaders(trailers.map { (name: $0.0, value: $0.1) }))
    }
}

struct RequestFixture: Sendable, CustomTestStringConvertible {
    var name: String
    var raw: [UInt8]
    var expected: [ExpectedRequest]

    init(_ name: String, _ raw: String, _ expected: [ExpectedRequest]) {
        self.name = name
        self.raw = Array(raw.utf8)
        self.expected = expected
    }

    init(_ name: String, bytes: [UInt8], _ expected: [ExpectedRequest]) {
        self.name = name
        self.raw = bytes
        self.expected = expected
    }

    var testDescription: String { name }
}

private let manyHeaders = (1...60).map { ("X-Header-\($0)", "value \($0)") }

let validRequestFixtures: [RequestFixture] = [
    RequestFixture("simple GET", "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n", [
        ExpectedRequest(method: .get, target: "/", path: "/", headers: [("Host", "example.com")]),
    ]),
    RequestFixture(
        "headers with OWS",
        "GET /a HTTP/1.1\r\nHost:example.com\r\nX-Spaced:   padded value \t \r\nX-Empty:\r\nX-Inner: a  b\r\n\r\n",
        [ExpectedRequest(method: .get, target: "/a", path: "/a", headers: [
            ("Host", "example.com"), ("X-Spaced", "padded value"), ("X-Empty", ""), ("X-Inner", "a  b"),
        ])]),
    RequestFixture("HEAD", "HEAD /index.html HTTP/1.1\r\nHost: h\r\n\r\n", [
        ExpectedRequest(method: .head, target: "/index.html", path: "/index.html", headers: [("Host", "h")]),
    ]),
    RequestFixture(
        "POST with Content-Length body",
        "POST /items HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n{\"id\": \"a-1\"}",
        [ExpectedRequest(
            method: .post, target: "/items", path: "/items",
            headers: [("Host", "h"), ("Content-Type", "application/json"), ("Content-Length", "13")],
            framing: .contentLength(13), body: "{\"id\": \"a-1\"}")]),
    RequestFixture(
        "chunked with extensions and trailers",
        "POST /upload HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=value\r\nhello\r\n"
            + "6 ; quoted=\"a \\\" b\" ; flag\r\n world\r\n"
            + "A\r\n0123456789\r\n"
            + "0\r\nX-Checksum: abc\r\nX-Other: 1\r\n\r\n",
        [ExpectedRequest(
            method: .post, target: "/upload", path: "/upload",
            headers: [("Host", "h"), ("Transfer-Encoding", "chunked")],
            framing: .chunked, body: "hello world0123456789",
            trailers: [("X-Checksum", "abc"), ("X-Other", "1")])]),
    RequestFixture(
        "chunked without trailers, uppercase coding name",
        "PUT /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: CHUNKED\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
        [ExpectedRequest(
            method: .put, target: "/x", path: "/x",
            headers: [("Host", "h"), ("Transfer-Encoding", "CHUNKED")], framing: .chunked, body: "abc")]),
    RequestFixture(
        "pipelined pair",
        "GET /first HTTP/1.1\r\nHost: h\r\n\r\nPOST /second HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc",
        [
            ExpectedRequest(method: .get, target: "/first", path: "/first", headers: [("Host", "h")]),
            ExpectedRequest(
                method: .post, target: "/second", path: "/second",
                headers: [("Host", "h"), ("Content-Length", "3")], framing: .contentLength(3), body: "abc"),
        ]),
    RequestFixture("HTTP/1.0 without keep-alive", "GET /old HTTP/1.0\r\nUser-Agent: x\r\n\r\n", [
        ExpectedRequest(
            method: .get, target: "/old", path: "/old", version: .http1_0,
            headers: [("User-Agent", "x")], keepAlive: false),
    ]),
    RequestFixture("HTTP/1.0 with keep-alive", "GET /old HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", [
        ExpectedRequest(
            method: .get, target: "/old", path: "/old", version: .http1_0,
            headers: [("Connection", "Keep-Alive")], keepAlive: true),
    ]),
    RequestFixture("Connection: close", "GET / HTTP/1.1\r\nHost: h\r\nConnection: upgrade, Close\r\n\r\n", [
        ExpectedRequest(
            method: .get, target: "/", path: "/",
            headers: [("Host", "h"), ("Connection", "upgrade, Close")], keepAlive: false),
    ]),
    RequestFixture(
        "Expect: 100-continue",
        "PUT /doc HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\nContent-Length: 2\r\n\r\nok",
        [ExpectedRequest(
            method: .put, target: "/doc", path: "/doc",
            headers: [("Host", "h"), ("Expect", "100-Continue"), ("Content-Length", "2")],
            expectsContinue: true, framing: .contentLength(2), body: "ok")]),
    RequestFixture(
        "Expect ignored in HTTP/1.0",
        "POST /doc HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nz",
        [ExpectedRequest(
            method: .post, target: "/doc", path: "/doc", version: .http1_0,
            headers: [("Expect", "100-continue"), ("Content-Length", "1")],
            keepAlive: false, framing: .contentLength(1), body: "z")]),
    RequestFixture(
        "absolute-form",
        "GET http://example.com:8080/a/b?x=1&y HTTP/1.1\r\nHost: example.com:8080\r\n\r\n"
            + "GET HTTPS://example.com HTTP/1.1\r\nHost: example.com\r\n\r\n",
        [
            ExpectedRequest(
                method: .get, target: "http://example.com:8080/a/b?x=1&y", path: "/a/b", query: "x=1&y",
                headers: [("Host", "example.com:8080")]),
            ExpectedRequest(
                method: .get, target: "HTTPS://example.com", path: "/", headers: [("Host", "example.com")]),
        ]),
    RequestFixture("OPTIONS *", "OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n", [
        ExpectedRequest(method: .options, target: "*", path: "*", headers: [("Host", "h")]),
    ]),
    RequestFixture("CONNECT authority-form", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", [
        ExpectedRequest(
            method: .connect, target: "example.com:443", path: "example.com:443",
            headers: [("Host", "example.com:443")]),
    ]),
    RequestFixture(
        "query strings",
        "GET /search?q=swift%20lang&page=2 HTTP/1.1\r\nHost: h\r\n\r\nGET /p? HTTP/1.1\r\nHost: h\r\n\r\n",
        [
            ExpectedRequest(
                method: .get, target: "/search?q=swift%20lang&page=2", path: "/search",
                query: "q=swift%20lang&page=2", headers: [("Host", "h")]),
            ExpectedRequest(method: .get, target: "/p?", path: "/p", query: "", headers: [("Host", "h")]),
        ]),
    RequestFixture("leading CRLF", "\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n", [
        ExpectedRequest(method: .get, target: "/", path: "/", headers: [("Host", "h")]),
    ]),
    RequestFixture(
        "many headers",
        "GET /many HTTP/1.1\r\nHost: h\r\n" + manyHeaders.map { "\($0.0): \($0.1)\r\n" }.joined() + "\r\n",
        [ExpectedRequest(method: .get, target: "/many", path: "/many", headers: [("Host", "h")] + manyHeaders)]),
    RequestFixture(
        "multi-value headers",
        "GET / HTTP/1.1\r\nHost: h\r\nAccept: text/html\r\nCache-Control: no-cache, no-store\r\naccept: application/json\r\n\r\n",
        [ExpectedRequest(method: .get, target: "/", path: "/", headers: [
            ("Host", "h"), ("Accept", "text/html"), ("Cache-Control", "no-cache, no-store"),
            ("accept", "application/json"),
        ])]),
    RequestFixture(
        "GET with a body is framed normally, then Content-Length 0",
        "GET /q HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nbodyPOST /e HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n",
        [
            ExpectedRequest(
                method: .get, target: "/q", path: "/q", headers: [("Host", "h"), ("Content-Length", "4")],
                framing: .contentLength(4), body: "body"),
            ExpectedRequest(
                method: .post, target: "/e", path: "/e", headers: [("Host", "h"), ("Content-Length", "0")],
                framing: .contentLength(0)),
        ]),
    RequestFixture(
        "repeated identical Content-Length",
        "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 3, 3\r\n\r\nxyz",
        [ExpectedRequest(
            method: .post, target: "/", path: "/",
            headers: [("Host", "h"), ("Content-Length", "3"), ("Content-Length", "3, 3")],
            framing: .contentLength(3), body: "xyz")]),
    RequestFixture(
        "extension method and obs-text value",
        bytes: Array("PURGE /cache HTTP/1.1\r\nHost: h\r\nX-Name: caf".utf8) + [0xC3, 0xA9] + Array("\r\n\r\n".utf8),
        [ExpectedRequest(
            method: HTTPMethod(rawValue: "PURGE"), target: "/cache", path: "/cache",
            headers: [("Host", "h"), ("X-Name", "café")])]),
    RequestFixture(
        "empty Host allowed",
        "GET / HTTP/1.1\r\nHost:\r\n\r\n",
        [ExpectedRequest(method: .get, target: "/", path: "/", headers: [("Host", "")])]),
]

@Suite("Valid requests")
struct RequestFixtureTests {
    @Test(arguments: validRequestFixtures)
    func wholeInput(_ fixture: RequestFixture) throws {
        try check(fixture, .whole)
    }

    @Test(arguments: validRequestFixtures)
    func oneByteAtATime(_ fixture: RequestFixture) throws {
        try check(fixture, .byteByByte)
    }

    @Test(arguments: validRequestFixtures)
    func splitAtEveryOffset(_ fixture: RequestFixture) throws {
        for offset in 0...fixture.raw.count {
            try check(fixture, .split(at: offset))
        }
    }

    private func check(_ fixture: RequestFixture, _ feeding: Feeding) throws {
        let parsed = try parseRequests(feeding.pieces(of: fixture.raw))
        #expect(parsed.count == fixture.expected.count, "\(feeding.testDescription)")
        for (message, expected) in zip(parsed, fixture.expected) {
            expected.matches(message)
        }
    }

    @Test func bodyRangesPointIntoTheInput() throws {
        var parser = HTTPRequestParser()
        let bytes = Array("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n".utf8)
        var events: [HTTPRequestParser.Event] = []
        var offset = 0
        while true {
            let (event, consumed) = try bytes[offset...].withUnsafeBytes { try parser.parse($0) }
            if case .body(let range) = event {
                #expect(Array(bytes[(offset + range.lowerBound)..<(offset + range.upperBound)]).count == range.count)
            }
            offset += consumed
            if event == .needMoreData { break }
            events.append(event)
        }
        #expect(events.count == 4)  // head, body "abc", body "de", end
        #expect(offset == bytes.count)
    }

    @Test func resetDiscardsAPartialMessage() throws {
        var parser = HTTPRequestParser()
        let partial = Array("GET /a HTTP/1.1\r\nHo".utf8)
        _ = try partial.withUnsafeBytes { try parser.parse($0) }
        parser.reset()
        let fresh = Array("GET /b HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
        let (event, consumed) = try fresh.withUnsafeBytes { try parser.parse($0) }
        guard case .head(let head) = event else {
            Issue.record("expected a head, got \(event)")
            return
        }
        #expect(head.path == "/b")
        #expect(consumed == fresh.count)
    }
}
