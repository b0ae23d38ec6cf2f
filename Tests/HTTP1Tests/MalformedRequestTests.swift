import HTTP1
import Testing

struct MalformedRequest: Sendable, CustomTestStringConvertible {
    var name: String
    var raw: [UInt8]
    var error: HTTPParseError
    var status: Int
    var limits = HTTPLimits()

    init(_ name: String, _ raw: String, _ error: HTTPParseError, _ status: Int, limits: HTTPLimits = HTTPLimits()) {
        self.init(name, bytes: Array(raw.utf8), error, status, limits: limits)
    }

    init(_ name: String, bytes: [UInt8], _ error: HTTPParseError, _ status: Int, limits: HTTPLimits = HTTPLimits()) {
        self.name = name
        self.raw = bytes
        self.error = error
        self.status = status
        self.limits = limits
    }

    var testDescription: String { name }
}

private func get(_ headers: String) -> String {
    "GET / HTTP/1.1\r\nHost: h\r\n" + headers + "\r\n"
}

private func post(_ headers: String, body: String) -> String {
    "POST / HTTP/1.1\r\nHost: h\r\n" + headers + "\r\n" + body
}

private let chunked = "Transfer-Encoding: chunked\r\n"
private let tlsClientHello: [UInt8] = [
    0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03, 0x5A, 0x1F, 0x00, 0x20, 0x0D, 0x0A,
]
private let smallBody = HTTPLimits(maxBodyBytes: 10)

let malformedRequests: [MalformedRequest] = [
    // Framing conflicts and Content-Length syntax
    MalformedRequest("CL + TE", post("Content-Length: 5\r\n" + chunked, body: "0\r\n\r\n"), .conflictingFraming, 400),
    MalformedRequest("TE + CL", post(chunked + "Content-Length: 5\r\n", body: "0\r\n\r\n"), .conflictingFraming, 400),
    MalformedRequest("two differing CLs", post("Content-Length: 5\r\nContent-Length: 6\r\n", body: "hello!"),
                     .conflictingContentLength, 400),
    MalformedRequest("differing CL list", post("Content-Length: 5, 6\r\n", body: "hello!"), .conflictingContentLength, 400),
    MalformedRequest("CL with plus sign", post("Content-Length: +5\r\n", body: "hello"), .invalidContentLength, 400),
    MalformedRequest("CL negative", post("Content-Length: -5\r\n", body: "hello"), .invalidContentLength, 400),
    MalformedRequest("CL with inner space", post("Content-Length: 1 0\r\n", body: "0123456789"), .invalidContentLength, 400),
    MalformedRequest("CL hex", post("Content-Length: 0x5\r\n", body: "hello"), .invalidContentLength, 400),
    MalformedRequest("CL overflow", post("Content-Length: 99999999999999999999999\r\n", body: "x"), .invalidContentLength, 400),
    MalformedRequest("CL empty", post("Content-Length:\r\n", body: ""), .invalidContentLength, 400),
    MalformedRequest("CL empty list element", post("Content-Length: 5,\r\n", body: "hello"), .invalidContentLength, 400),
    MalformedRequest("CL trailing garbage", post("Content-Length: 5abc\r\n", body: "hello"), .invalidContentLength, 400),
    // Transfer-Encoding
    MalformedRequest("TE gzip", post("Transfer-Encoding: gzip\r\n", body: ""), .unsupportedTransferCoding, 501),
    MalformedRequest("TE chunked, gzip", post("Transfer-Encoding: chunked, gzip\r\n", body: ""), .invalidTransferEncoding, 400),
    MalformedRequest("TE chunked then gzip line", post(chunked + "Transfer-Encoding: gzip\r\n", body: ""),
                     .invalidTransferEncoding, 400),
    MalformedRequest("TE gzip, chunked", post("Transfer-Encoding: gzip, chunked\r\n", body: ""), .unsupportedTransferCoding, 501),
    MalformedRequest("TE chunkedx", post("Transfer-Encoding: chunkedx\r\n", body: ""), .unsupportedTransferCoding, 501),
    MalformedRequest("TE chunked twice", post("Transfer-Encoding: chunked, chunked\r\n", body: ""), .invalidTransferEncoding, 400),
    MalformedRequest("TE empty", post("Transfer-Encoding: \r\n", body: ""), .invalidTransferEncoding, 400),
    MalformedRequest("TE non-token", post("Transfer-Encoding: \"chunked\"\r\n", body: ""), .invalidTransferEncoding, 400),
    MalformedRequest("TE in HTTP/1.0", "POST / HTTP/1.0\r\n" + chunked + "\r\n0\r\n\r\n", .transferEncodingInHTTP10, 400),
    // Field lines
    MalformedRequest("obs-fold", get("X-A: one\r\n  two\r\n"), .obsoleteLineFolding, 400),
    MalformedRequest("obs-fold right after request line", "GET / HTTP/1.1\r\n Host: h\r\n\r\n", .obsoleteLineFolding, 400),
    MalformedRequest("space before colon", get("Content-Length : 5\r\n"), .whitespaceBeforeColon, 400),
    MalformedRequest("tab before colon", get("X-A\t: 5\r\n"), .whitespaceBeforeColon, 400),
    MalformedRequest("bare CR in value", get("X-A: a\rb\r\n"), .bareCR, 400),
    MalformedRequest("bare LF line ending", "GET / HTTP/1.1\r\nHost: h\nX-A: b\r\n\r\n", .bareLineFeed, 400),
    MalformedRequest("bare LF after request line", "GET / HTTP/1.1\nHost: h\r\n\r\n", .bareLineFeed, 400),
    MalformedRequest("bare LF blank line", "GET / HTTP/1.1\r\nHost: h\r\n\n", .bareLineFeed, 400),
    MalformedRequest("NUL in header value", get("X-A: a\u{0}b\r\n"), .invalidHeaderValue, 400),
    MalformedRequest("DEL in header value", get("X-A: a\u{7F}b\r\n"), .invalidHeaderValue, 400),
    MalformedRequest("control char in name", get("X-\u{1}A: b\r\n"), .invalidHeaderName, 400),
    MalformedRequest("empty header name", get(": b\r\n"), .invalidHeaderName, 400),
    MalformedRequest("non-token name", get("X(A): b\r\n"), .invalidHeaderName, 400),
    MalformedRequest("missing colon", get("NoColonHere\r\n"), .missingHeaderColon, 400),
    // Host
    MalformedRequest("missing Host in 1.1", "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", .missingHost, 400),
    MalformedRequest("two Hosts", get("Host: other\r\n"), .duplicateHost, 400),
    MalformedRequest("two Hosts in 1.0", "GET / HTTP/1.0\r\nHost: a\r\nhost: b\r\n\r\n", .duplicateHost, 400),
    MalformedRequest("Host with space", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", .invalidHost, 400),
    MalformedRequest("Host with slash", "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", .invalidHost, 400),
    // Version
    MalformedRequest("HTTP/2.0", "GET / HTTP/2.0\r\nHost: h\r\n\r\n", .unsupportedVersion, 505),
    MalformedRequest("HTTP/1.2", "GET / HTTP/1.2\r\nHost: h\r\n\r\n", .unsupportedVersion, 505),
    MalformedRequest("HTTP/0.9", "GET / HTTP/0.9\r\nHost: h\r\n\r\n", .unsupportedVersion, 505),
    MalformedRequest("lowercase http/1.1", "GET / http/1.1\r\nHost: h\r\n\r\n", .invalidVersion, 400),
    MalformedRequest("HTTX/1.1", "GET / HTTX/1.1\r\nHost: h\r\n\r\n", .invalidVersion, 400),
    MalformedRequest("HTTP/1.10", "GET / HTTP/1.10\r\nHost: h\r\n\r\n", .invalidVersion, 400),
    MalformedRequest("HTTP/1", "GET / HTTP/1\r\nHost: h\r\n\r\n", .invalidVersion, 400),
    MalformedRequest("trailing space after version", "GET / HTTP/1.1 \r\nHost: h\r\n\r\n", .invalidVersion, 400),
    // Request line shape
    MalformedRequest("double space", "GET  / HTTP/1.1\r\nHost: h\r\n\r\n", .malformedRequestLine, 400),
    MalformedRequest("leading space", " GET / HTTP/1.1\r\nHost: h\r\n\r\n", .malformedRequestLine, 400),
    MalformedRequest("tab after method", "GET\t/ HTTP/1.1\r\nHost: h\r\n\r\n", .invalidMethod, 400),
    MalformedRequest("tab after target", "GET /\tHTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget, 400),
    MalformedRequest("missing version", "GET /\r\nHost: h\r\n\r\n", .malformedRequestLine, 400),
    MalformedRequest("method only", "GET\r\n\r\n", .malformedRequestLine, 400),
    MalformedRequest("bare CR in request line", "GET /\rx HTTP/1.1\r\n\r\n", .bareCR, 400),
    MalformedRequest("non-token method", "GE(T / HTTP/1.1\r\nHost: h\r\n\r\n", .invalidMethod, 400),
    MalformedRequest("NUL in target", "GET /a\u{0}b HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget, 400),
    MalformedRequest("non-ASCII in target", bytes: Array("GET /caf".utf8) + [0xC3, 0xA9] + Array(" HTTP/1.1\r\n\r\n".utf8),
                     .invalidTarget, 400),
    MalformedRequest("target without slash", "GET foo HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget, 400),
    MalformedRequest("fragment in target", "GET /a#frag HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget, 400),
    MalformedRequest("asterisk with GET", "GET * HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget, 400),
    MalformedRequest("authority-form with GET", "GET example.com:443 HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget, 400),
    MalformedRequest("CONNECT with origin-form", "CONNECT / HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget, 400),
    MalformedRequest("absolute-form with userinfo", "GET http://user@h/ HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget, 400),
    MalformedRequest("absolute-form other scheme", "GET ftp://h/ HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget, 400),
    MalformedRequest("too many leading empty lines", String(repeating: "\r\n", count: 9) + "GET / HTTP/1.1\r\n\r\n",
                     .malformedRequestLine, 400),
    MalformedRequest("TLS ClientHello", bytes: tlsClientHello, .invalidMethod, 400),
    MalformedRequest("HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", .unsupportedVersion, 505),
    MalformedRequest("garbage bytes", bytes: [0x01, 0x02, 0xFF, 0x00, 0x7F], .invalidMethod, 400),
    // Chunked framing
    MalformedRequest("chunk size g", post(chunked, body: "g\r\n"), .invalidChunkSize, 400),
    MalformedRequest("chunk size negative", post(chunked, body: "-5\r\nhello\r\n0\r\n\r\n"), .invalidChunkSize, 400),
    MalformedRequest("chunk size trailing space", post(chunked, body: "5 \r\nhello\r\n0\r\n\r\n"), .invalidChunkSize, 400),
    MalformedRequest("chunk size leading space", post(chunked, body: " 5\r\nhello\r\n0\r\n\r\n"), .invalidChunkSize, 400),
    MalformedRequest("chunk size inner space", post(chunked, body: "1 0\r\n"), .invalidChunkSize, 400),
    MalformedRequest("chunk size 0x prefix", post(chunked, body: "0x5\r\nhello\r\n0\r\n\r\n"), .invalidChunkSize, 400),
    MalformedRequest("chunk size overflow", post(chunked, body: "FFFFFFFFFFFFFFFFF\r\n"), .invalidChunkSize, 400),
    MalformedRequest("chunk size empty", post(chunked, body: "\r\n"), .invalidChunkSize, 400),
    MalformedRequest("chunk extension without name", post(chunked, body: "5;=x\r\nhello\r\n0\r\n\r\n"),
                     .invalidChunkExtension, 400),
    MalformedRequest("chunk extension unterminated quote", post(chunked, body: "5;a=\"x\r\nhello\r\n0\r\n\r\n"),
                     .invalidChunkExtension, 400),
    MalformedRequest("chunk extension too long",
                     post(chunked, body: "5;a=" + String(repeating: "b", count: 5000) + "\r\n"),
                     .invalidChunkExtension, 400),
    MalformedRequest("missing CRLF after chunk data", post(chunked, body: "5\r\nhelloX\r\n0\r\n\r\n"),
                     .invalidChunkFraming, 400),
    MalformedRequest("LF only after chunk data", post(chunked, body: "5\r\nhello\n0\r\n\r\n"), .invalidChunkFraming, 400),
    MalformedRequest("CR without LF after chunk data", post(chunked, body: "5\r\nhello\rX0\r\n\r\n"),
                     .invalidChunkFraming, 400),
    MalformedRequest("bad trailer field", post(chunked, body: "0\r\nBad Trailer: x\r\n\r\n"), .whitespaceBeforeColon, 400),
    MalformedRequest("bare LF in chunk size line", post(chunked, body: "5\nhello"), .bareLineFeed, 400),
    // Limits
    MalformedRequest("huge chunk over body limit", post(chunked, body: "100001\r\n"), .bodyTooLarge, 413),
    MalformedRequest("chunked total over body limit", post(chunked, body: "6\r\nabcdef\r\n6\r\n"), .bodyTooLarge, 413,
                     limits: smallBody),
    MalformedRequest("CL over body limit", post("Content-Length: 2000000\r\n", body: ""), .bodyTooLarge, 413),
    MalformedRequest("CL over small body limit", post("Content-Length: 11\r\n", body: ""), .bodyTooLarge, 413,
                     limits: smallBody),
    MalformedRequest("request line too long", "GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: h\r\n\r\n",
                     .requestLineTooLong, 414),
    MalformedRequest("request line too long before CRLF", "GET /" + String(repeating: "a", count: 9000),
                     .requestLineTooLong, 414),
    MalformedRequest("request line one byte over a small limit", "GET /abcdef HTTP/1.1\r\n", .requestLineTooLong, 414,
                     limits: HTTPLimits(maxRequestLineBytes: 18)),
    MalformedRequest("header section too large", get("X-Big: " + String(repeating: "v", count: 40000) + "\r\n"),
                     .headerSectionTooLarge, 431),
    MalformedRequest("header section too large before it ends",
                     "GET / HTTP/1.1\r\nHost: h\r\n" + String(repeating: "X-Filler: " + String(repeating: "0123456789", count: 50) + "\r\n", count: 80),
                     .headerSectionTooLarge, 431),
    MalformedRequest("too many headers", get((1...101).map { "X-\($0): v\r\n" }.joined()), .tooManyHeaders, 431),
    MalformedRequest("trailers count toward the header limit",
                     post(chunked, body: "0\r\nX-T1: a\r\nX-T2: b\r\n\r\n"), .tooManyHeaders, 431,
                     limits: HTTPLimits(maxHeaderCount: 3)),
]

@Suite("Malformed requests")
struct MalformedRequestTests {
    @Test(arguments: malformedRequests)
    func rejectedWhole(_ fixture: MalformedRequest) {
        let error = requestError([fixture.raw], limits: fixture.limits)
        #expect(error == fixture.error, "got \(String(describing: error))")
        #expect(error?.status.code == fixture.status)
    }

    @Test(arguments: malformedRequests)
    func rejectedOneByteAtATime(_ fixture: MalformedRequest) {
        let error = requestError(Feeding.byteByByte.pieces(of: fixture.raw), limits: fixture.limits)
        #expect(error == fixture.error, "got \(String(describing: error))")
        #expect(error?.status.code == fixture.status)
    }

    @Test func statusMatchesTheTable() {
        for fixture in malformedRequests {
            #expect(fixture.error.status.code == fixture.status, "\(fixture.name)")
        }
        #expect(malformedRequests.count >= 45)
    }

    @Test func boundaryValuesAreAccepted() throws {
        // Exactly at each limit is fine; one over is not (see the table above).
        let limits = HTTPLimits(maxRequestLineBytes: 17, maxHeaderBytes: 9, maxHeaderCount: 1, maxBodyBytes: 3)
        let raw = Array("GET /abcd HTTP/1.1\r\nHost: h\r\n\r\n".utf8)  // line 18 bytes → too long
        #expect(requestError([raw], limits: limits) == .requestLineTooLong)
        let fits = Array("GET /abc HTTP/1.1\r\nHost: h\r\n\r\nPOST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc".utf8)
        #expect(throws: HTTPParseError.headerSectionTooLarge) {
            _ = try parseRequests([fits], limits: limits)
        }
        let roomy = HTTPLimits(maxRequestLineBytes: 17, maxHeaderBytes: 28, maxHeaderCount: 2, maxBodyBytes: 3)
        let parsed = try parseRequests([fits], limits: roomy)
        #expect(parsed.count == 2)
    }

    /// A refusal for the framing comes after the whole header section was read: the server
    /// still answers to that head (its request id), so the parser keeps it.
    @Test func aRequestRefusedForItsFramingKeepsItsHead() throws {
        var parser = HTTPRequestParser(limits: HTTPLimits(maxBodyBytes: 10))
        let raw = Array("POST /upload?x=1 HTTP/1.1\r\nHost: h\r\nX-Request-ID: big-1\r\nContent-Length: 11\r\n\r\n".utf8)
        #expect(throws: HTTPParseError.bodyTooLarge) {
            _ = try raw.withUnsafeBytes { try parser.parse($0) }
        }
        let head = try #require(parser.refusedHead)
        #expect(head.method == .post)
        #expect(head.path == "/upload")
        #expect(head.headers["X-Request-ID"] == "big-1")
        parser.reset()
        #expect(parser.refusedHead == nil)
        // Other refusals have no head to keep.
        var other = HTTPRequestParser()
        _ = try? Array("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n".utf8).withUnsafeBytes { try other.parse($0) }
        #expect(other.refusedHead == nil)
    }

    /// The parser consumes whole lines, so the caller cannot tell from its buffer that a request
    /// has begun; the parser says so.
    @Test func aMessageHasBegunOnceItsRequestLineIsConsumed() throws {
        var parser = HTTPRequestParser()
        #expect(!parser.hasBegunMessage)
        let line = Array("GET / HTTP/1.1\r\n".utf8)
        let (event, consumed) = try line.withUnsafeBytes { try parser.parse($0) }
        #expect(event == .needMoreData && consumed == line.count)
        #expect(parser.hasBegunMessage)
        parser.reset()
        #expect(!parser.hasBegunMessage)
    }

    /// Empty lines before a request are ignored (RFC 9112 §2.2): they begin no message, so a
    /// connection that received one after a request is still idle.
    @Test func emptyLinesBeforeARequestBeginNoMessage() throws {
        var parser = HTTPRequestParser()
        let lines = Array("\r\n\r\n".utf8)
        let (event, consumed) = try lines.withUnsafeBytes { try parser.parse($0) }
        #expect(event == .needMoreData && consumed == lines.count)
        #expect(!parser.hasBegunMessage)
    }

    /// The header budget counts a line's bytes the same whether a name or a value runs over it,
    /// and whether the section arrives whole or a byte at a time (runs of ordinary bytes are
    /// scanned in a tight loop that must stop at the budget).
    @Test(arguments: [
        ("Accept: hh", 12), ("Acceptance: h", 15), ("X-Note: h\tx y", 15),
    ])
    func aFieldLineFitsItsBudgetExactlyAndNotOneByteLess(line: String, exactBudget: Int) throws {
        let raw = Array("GET / HTTP/1.0\r\n\(line)\r\n\r\n".utf8)
        for pieces in [[raw], raw.map { [$0] }] {
            let exact = HTTPLimits(maxRequestLineBytes: 64, maxHeaderBytes: exactBudget, maxHeaderCount: 4, maxBodyBytes: 0)
            #expect(try parseRequests(pieces, limits: exact).count == 1)
            let short = HTTPLimits(maxRequestLineBytes: 64, maxHeaderBytes: exactBudget - 1, maxHeaderCount: 4, maxBodyBytes: 0)
            #expect(requestError(pieces, limits: short) == .headerSectionTooLarge)
        }
    }
}
