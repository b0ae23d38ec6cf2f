import HTTP1
import Testing

@Suite("HTTPHeaders")
struct HTTPHeadersTests {
    @Test func lookupsAreCaseInsensitive() {
        let headers: HTTPHeaders = ["Content-Type": "text/plain", "X-A": "1"]
        #expect(headers["content-type"] == "text/plain")
        #expect(headers["CONTENT-TYPE"] == "text/plain")
        #expect(headers.contains("x-a"))
        #expect(!headers.contains("x-b"))
        #expect(headers["missing"] == nil)
    }

    @Test func repeatedFieldsKeepOrder() {
        var headers = HTTPHeaders()
        headers.add(name: "Accept", value: "a")
        headers.add(name: "X", value: "x")
        headers.add(name: "accept", value: "b")
        #expect(headers.values("ACCEPT") == ["a", "b"])
        #expect(headers["accept"] == "a")
        #expect(headers.count == 3)
        #expect(headers.count(of: "Accept") == 2)
    }

    @Test func replaceOrAddKeepsPositionAndDropsDuplicates() {
        var headers = HTTPHeaders([("A", "1"), ("B", "2"), ("a", "3")])
        headers.replaceOrAdd(name: "A", value: "new")
        #expect(Array(headers.map(\.name)) == ["A", "B"])
        #expect(headers["a"] == "new")
        headers.replaceOrAdd(name: "C", value: "c")
        #expect(headers.count == 3)
        headers.remove(name: "b")
        #expect(!headers.contains("B"))
        #expect(headers.count == 2)
    }

    @Test func tokensInListHeaders() {
        let headers = HTTPHeaders([("Connection", "keep-alive, Upgrade"), ("connection", " ,close ")])
        #expect(headers.containsToken("upgrade", in: "Connection"))
        #expect(headers.containsToken("CLOSE", in: "connection"))
        #expect(headers.containsToken("keep-alive", in: "CONNECTION"))
        #expect(!headers.containsToken("keep", in: "Connection"))
        #expect(!headers.containsToken("close", in: "Other"))
    }

    @Test func equalityIgnoresNameCaseButNotOrderOrValues() {
        #expect(HTTPHeaders([("A", "1"), ("B", "2")]) == HTTPHeaders([("a", "1"), ("b", "2")]))
        #expect(HTTPHeaders([("A", "1"), ("B", "2")]) != HTTPHeaders([("B", "2"), ("A", "1")]))
        #expect(HTTPHeaders([("A", "1")]) != HTTPHeaders([("A", "x")]))
    }

    @Test func statusDefaultsToTheStandardPhrase() {
        #expect(HTTPStatus.payloadTooLarge.reasonPhrase == "Content Too Large")
        #expect(HTTPStatus(code: 404).reasonPhrase == "Not Found")
        #expect(HTTPStatus(code: 404, reasonPhrase: "Nope").reasonPhrase == "Nope")
        #expect(HTTPStatus.unsupportedMediaType.code == 415)
        #expect(HTTPMethod.get.description == "GET")
        #expect(HTTPParseError.missingHost.description.hasPrefix("400 Bad Request"))
    }
}
