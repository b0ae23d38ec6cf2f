import HTTP1
import Testing

struct ExpectedResponse: Sendable {
    var code: Int
    var reason: String
    var version: HTTPVersion = .http1_1
    var headers: [(String, String)]
    var framing: BodyFraming
    var keepAlive: Bool
    var body = ""
    var trailers: [(String, String)] = []

    func matches(_ parsed: ParsedResponse) {
        #expect(parsed.head.status.code == code)
        #expect(parsed.head.status.reasonPhrase == reason)
        #expect(parsed.head.version == version)
        #expect(parsed.head.headers == HTTPHeaders(headers.map { (name: $0.0, value: $0.1) }))
        #expect(parsed.head.framing == framing)
        #expect(parsed.head.keepAlive == keepAlive)
        #expect(parsed.body == Array(body.utf8))
        #expect(parsed.trailers == HTTPHeaders(trailers.map { (name: $0.0, value: $0.1) }))
    }
}

struct ResponseFixture: Sendable, CustomTestStringConvertible {
    var name: String
    var raw: [UInt8]
    var methods: [HTTPMethod]
    /// Whether the server closes the connection after the bytes (finishAtEOF is called).
    var closeAtEnd: Bool
    var expected: [ExpectedResponse]

    init(_ name: String, _ raw: String, methods: [HTTPMethod] = [.get], closeAtEnd: Bool = false,
         _ expected: [ExpectedResponse]) {
        self.name = name
        self.raw = Array(raw.utf8)
        self.methods = methods
        self.closeAtEnd = closeAtEnd
        self.expected = expected
    }

    var testDescription: String { name }
}

let validResponseFixtures: [ResponseFixture] = [
    ResponseFixture("Content-Length body", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", [
        ExpectedResponse(code: 200, reason: "OK", headers: [("Content-Length", "5")],
                         framing: .contentLength(5), keepAlive: true, body: "hello"),
    ]),
    ResponseFixture(
        "chunked body with trailers",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;x=y\r\nwiki\r\n5\r\npedia\r\n0\r\nExpires: never\r\n\r\n",
        [ExpectedResponse(code: 200, reason: "OK", headers: [("Transfer-Encoding", "chunked")], framing: .chunked,
                          keepAlive: true, body: "wikipedia", trailers: [("Expires", "never")])]),
    ResponseFixture("close-delimited", "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end", closeAtEnd: true, [
        ExpectedResponse(code: 200, reason: "OK", headers: [("Content-Type", "text/plain")],
                         framing: .untilClose, keepAlive: false, body: "until the end"),
    ]),
    ResponseFixture(
        "HEAD response with Content-Length but no body, then a GET response",
        "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\nno",
        methods: [.head, .get],
        [
            ExpectedResponse(code: 200, reason: "OK", headers: [("Content-Length", "100")], framing: .none, keepAlive: true),
            ExpectedResponse(code: 404, reason: "Not Found", headers: [("Content-Length", "2")],
                             framing: .contentLength(2), keepAlive: true, body: "no"),
        ]),
    ResponseFixture("204 has no body", "HTTP/1.1 204 No Content\r\nServer: x\r\n\r\n", [
        ExpectedResponse(code: 204, reason: "No Content", headers: [("Server", "x")], framing: .none, keepAlive: true),
    ]),
    ResponseFixture("304 has no body despite Content-Length", "HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n", [
        ExpectedResponse(code: 304, reason: "Not Modified", headers: [("Content-Length", "10")], framing: .none, keepAlive: true),
    ]),
    ResponseFixture(
        "100-continue then 200",
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n",
        methods: [.post],
        [ExpectedResponse(code: 201, reason: "Created", headers: [("Content-Length", "0")],
                          framing: .contentLength(0), keepAlive: true)]),
    ResponseFixture("HTTP/1.0 defaults to close", "HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\na", [
        ExpectedResponse(code: 200, reason: "OK", version: .http1_0, headers: [("Content-Length", "1")],
                         framing: .contentLength(1), keepAlive: false, body: "a"),
    ]),
    ResponseFixture("HTTP/1.0 with keep-alive", "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\na", [
        ExpectedResponse(code: 200, reason: "OK", version: .http1_0,
                         headers: [("Connection", "keep-alive"), ("Content-Length", "1")],
                         framing: .contentLength(1), keepAlive: true, body: "a"),
    ]),
    ResponseFixture("HTTP/1.1 with Connection: close", "HTTP/1.1 500 Internal Server Error\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", [
        ExpectedResponse(code: 500, reason: "Internal Server Error", headers: [("Connection", "close"), ("Content-Length", "0")],
                         framing: .contentLength(0), keepAlive: false),
    ]),
    ResponseFixture("close in a list", "HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 0\r\n\r\n", [
        ExpectedResponse(code: 200, reason: "OK", headers: [("Connection", "keep-alive, Close"), ("Content-Length", "0")],
                         framing: .contentLength(0), keepAlive: false),
    ]),
    ResponseFixture("close in a second Connection line", "HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nconnection: close\r\nContent-Length: 0\r\n\r\n", [
        ExpectedResponse(code: 200, reason: "OK",
                         headers: [("Connection", "keep-alive"), ("connection", "close"), ("Content-Length", "0")],
                         framing: .contentLength(0), keepAlive: false),
    ]),
    ResponseFixture("HTTP/1.0 keep-alive in a second Connection line", "HTTP/1.0 200 OK\r\nConnection: x\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n", [
        ExpectedResponse(code: 200, reason: "OK", version: .http1_0,
                         headers: [("Connection", "x"), ("Connection", "Keep-Alive"), ("Content-Length", "0")],
                         framing: .contentLength(0), keepAlive: true),
    ]),
    ResponseFixture("equal Content-Length values, as a list and repeated", "HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\ncontent-length: 2\r\n\r\nok", [
        ExpectedResponse(code: 200, reason: "OK", headers: [("Content-Length", "2, 2"), ("content-length", "2")],
                         framing: .contentLength(2), keepAlive: true, body: "ok"),
    ]),
    ResponseFixture("a Content-Length list in one line", "HTTP/1.1 200 OK\r\nContent-Length: 3,3\r\n\r\nabc", [
        ExpectedResponse(code: 200, reason: "OK", headers: [("Content-Length", "3,3")],
                         framing: .contentLength(3), keepAlive: true, body: "abc"),
    ]),
    ResponseFixture(
        "empty reason, with and without the SP",
        "HTTP/1.1 200 \r\nContent-Length: 0\r\n\r\nHTTP/1.1 299\r\nContent-Length: 0\r\n\r\n",
        methods: [.get, .get],
        [
            ExpectedResponse(code: 200, reason: "", headers: [("Content-Length", "0")], framing: .contentLength(0), keepAlive: true),
            ExpectedResponse(code: 299, reason: "", headers: [("Content-Length", "0")], framing: .contentLength(0), keepAlive: true),
        ]),
    ResponseFixture("close-delimited HTTP/1.0 with empty body", "HTTP/1.0 200 OK\r\n\r\n", closeAtEnd: true, [
        ExpectedResponse(code: 200, reason: "OK", version: .http1_0, headers: [], framing: .untilClose, keepAlive: false),
    ]),
    ResponseFixture("complete response then close", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi", closeAtEnd: true, [
        ExpectedResponse(code: 200, reason: "OK", headers: [("Content-Length", "2")], framing: .contentLength(2),
                         keepAlive: true, body: "hi"),
    ]),
]

@Suite("Response parser")
struct ResponseParserTests {
    @Test(arguments: validResponseFixtures)
    func wholeInput(_ fixture: ResponseFixture) throws {
        try check(fixture, .whole)
    }

    @Test(arguments: validResponseFixtures)
    func oneByteAtATime(_ fixture: ResponseFixture) throws {
        try check(fixture, .byteByByte)
    }

    @Test(arguments: validResponseFixtures)
    func splitAtEveryOffset(_ fixture: ResponseFixture) throws {
        for offset in 0...fixture.raw.count {
            try check(fixture, .split(at: offset))
        }
    }

    private func check(_ fixture: ResponseFixture, _ feeding: Feeding) throws {
        let parsed = try parseResponses(
            feeding.pieces(of: fixture.raw), requestMethods: fixture.methods, closeAtEnd: fixture.closeAtEnd)
        #expect(parsed.count == fixture.expected.count, "\(feeding.testDescription)")
        for (message, expected) in zip(parsed, fixture.expected) {
            expected.matches(message)
        }
    }

    @Test(arguments: [
        ("truncated Content-Length body", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", HTTPParseError.truncatedBody),
        ("truncated chunked body", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", .truncatedBody),
        ("chunked body without last chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n", .truncatedBody),
        ("truncated head", "HTTP/1.1 200 OK\r\nContent-Le", .truncatedHead),
        ("truncated status line", "HTTP/1.", .truncatedHead),
        ("only an interim response", "HTTP/1.1 100 Continue\r\n\r\n", .truncatedHead),
    ])
    func truncatedAtEOF(_ name: String, _ raw: String, _ expected: HTTPParseError) {
        for feeding in [Feeding.whole, .byteByByte] {
            let error = responseError(feeding.pieces(of: Array(raw.utf8)), closeAtEnd: true)
            #expect(error == expected, "\(name), \(feeding.testDescription)")
            #expect(error?.status.code == 502)
        }
    }

    @Test(arguments: [
        ("two-digit code", "HTTP/1.1 20 OK\r\n\r\n", HTTPParseError.malformedStatusLine),
        ("four-digit code", "HTTP/1.1 2000 OK\r\n\r\n", .malformedStatusLine),
        ("double space", "HTTP/1.1  200 OK\r\n\r\n", .malformedStatusLine),
        ("no space after code", "HTTP/1.1 200OK\r\n\r\n", .malformedStatusLine),
        ("code below 100", "HTTP/1.1 099 Low\r\n\r\n", .malformedStatusLine),
        ("code above 599", "HTTP/1.1 600 High\r\n\r\n", .malformedStatusLine),
        ("lowercase protocol", "http/1.1 200 OK\r\n\r\n", .malformedStatusLine),
        ("wrong protocol", "ICY 200 OK\r\n\r\n", .malformedStatusLine),
        ("control char in reason", "HTTP/1.1 200 O\u{1}K\r\n\r\n", .malformedStatusLine),
        ("HTTP/2.0", "HTTP/2.0 200 OK\r\n\r\n", .unsupportedVersion),
        ("bare LF", "HTTP/1.1 200 OK\nContent-Length: 0\r\n\r\n", .bareLineFeed),
        ("CL and TE", "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", .conflictingFraming),
        ("TE gzip", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", .unsupportedTransferCoding),
        ("TE chunked not last", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", .invalidTransferEncoding),
        ("differing CLs", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", .conflictingContentLength),
        ("differing CLs in one line", "HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\n", .conflictingContentLength),
        ("empty CL element", "HTTP/1.1 200 OK\r\nContent-Length: 1,\r\n\r\n", .invalidContentLength),
        ("obs-fold", "HTTP/1.1 200 OK\r\nX: a\r\n b\r\n\r\n", .obsoleteLineFolding),
        ("bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", .invalidChunkSize),
        ("CL over body limit", "HTTP/1.1 200 OK\r\nContent-Length: 1048577\r\n\r\n", .bodyTooLarge),
    ])
    func malformedResponses(_ name: String, _ raw: String, _ expected: HTTPParseError) {
        for feeding in [Feeding.whole, .byteByByte] {
            let error = responseError(feeding.pieces(of: Array(raw.utf8)), closeAtEnd: false)
            #expect(error == expected, "\(name), \(feeding.testDescription)")
        }
    }

    @Test func eofBeforeAnyResponseIsNotAnError() throws {
        var parser = HTTPResponseParser()
        #expect(try parser.finishAtEOF() == nil)
        let first = Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8)
        let (event, consumed) = try first.withUnsafeBytes { try parser.parse($0, requestMethod: .get) }
        #expect(consumed == first.count)
        if case .head = event {} else { Issue.record("expected head, got \(event)") }
        let (end, _) = try [UInt8]().withUnsafeBytes { try parser.parse($0, requestMethod: .get) }
        #expect(end == .end)
        #expect(try parser.finishAtEOF() == nil)
    }

    @Test func closeDelimitedBodyRespectsTheBodyLimit() {
        let raw = Array("HTTP/1.1 200 OK\r\n\r\n".utf8) + Array(repeating: UInt8(ascii: "x"), count: 11)
        var parser = HTTPResponseParser(limits: HTTPLimits(maxBodyBytes: 10))
        #expect(throws: HTTPParseError.bodyTooLarge) {
            var offset = 0
            while true {
                let (event, consumed) = try raw[offset...].withUnsafeBytes { try parser.parse($0, requestMethod: .get) }
                offset += consumed
                if event == .needMoreData { break }
            }
        }
    }

    @Test func switchingProtocolsIsAFinalHeadWithoutBody() throws {
        let raw = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
        let parsed = try parseResponses([Array(raw.utf8)], requestMethods: [.get], closeAtEnd: false)
        #expect(parsed.count == 1)
        #expect(parsed.first?.head.status.code == 101)
        #expect(parsed.first?.head.framing == BodyFraming.none)
        #expect(parsed.first?.head.keepAlive == false)
    }
}
