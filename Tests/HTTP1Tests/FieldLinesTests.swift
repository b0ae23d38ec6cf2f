import HTTP1
import Testing

struct FieldLinesTests {
    @Test func headersMadeFromLinesKeepOrderRepeatsAndInnerSpaces() {
        let headers = HTTPHeaders([
            ("Set-Cookie", "a=1"), ("Content-Type", "application/json"), ("set-cookie", "b=2; Path=/"),
            ("Date", "Thu, 03 Dec 2026 15:27:19 GMT"), ("X-Empty", ""),
        ])
        let lines = HTTPFieldLines(headers)
        #expect(lines.headers == headers)
        #expect(lines.headers.values("Set-Cookie") == ["a=1", "b=2; Path=/"])
        #expect(!lines.isEmpty)
        #expect(HTTPFieldLines().headers.isEmpty)
    }

    @Test func linesBuiltFromHeadersAreSanitizedAsOnTheWire() {
        let lines = HTTPFieldLines(HTTPHeaders([("X-Note", "one\r\ntwo")]))
        #expect(lines.headers["X-Note"] == "one  two")
    }

    @Test func aLineThatDoesNotScanEndsTheList() {
        let lines = HTTPFieldLines(HTTPHeaders([("Good", "1"), ("Bad Name", "2"), ("Later", "3")]))
        #expect(lines.headers == HTTPHeaders([("Good", "1")]))
    }

    @Test func aParsedResponseKeepsEveryFieldWhileFramingComesFromTheNotedOnes() throws {
        var parser = HTTPResponseParser()
        let raw = Array("HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Length:  2 \r\nETag: \"x\"\r\nVary: a\r\nVary: b\r\n\r\nok".utf8)
        let (event, _) = try raw.withUnsafeBytes { try parser.parse($0, requestMethod: .get) }
        guard case .head(let head) = event else {
            Issue.record("expected a head, got \(event)")
            return
        }
        #expect(head.framing == .contentLength(2))
        #expect(head.keepAlive)
        #expect(head.headers == HTTPHeaders([
            ("Server", "nginx"), ("Content-Length", "2"), ("ETag", "\"x\""), ("Vary", "a"), ("Vary", "b"),
        ]))
    }
}
