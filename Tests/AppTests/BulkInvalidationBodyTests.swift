@testable import App
import Testing

/// The bulk invalidation body, read strictly: every bad shape is refused whole with a reason.
struct BulkInvalidationBodyTests {
    private func read(_ body: String, type: String? = "application/json") -> Result<[String], BulkInvalidationBody.Problem> {
        BulkInvalidationBody.products(contentType: type, body: Array(body.utf8))
    }

    private func reason(_ body: String) -> String? {
        if case .failure(.invalid(let reason)) = read(body) { return reason }
        return nil
    }

    @Test func idsAreReadInOrderWithDuplicatesFolded() {
        #expect(read(#"{"products":["b","a","b","c_1-X"]}"#) == .success(["b", "a", "c_1-X"]))
        #expect(read(" {\n \"products\" : [ \"p1\" ] }\n") == .success(["p1"]))
    }

    @Test func everyBadShapeIsRefusedNamingWhatIsWrong() throws {
        #expect(try #require(reason("")).contains("not JSON"))
        #expect(try #require(reason("products=p1")).contains("not JSON"))
        #expect(try #require(reason(#"["p1"]"#)).contains("must be a JSON object"))
        #expect(try #require(reason(#""p1""#)).contains("must be a JSON object"))
        #expect(try #require(reason("{}")).contains("missing"))
        #expect(try #require(reason(#"{"product":["p1"]}"#)).contains(#"Unknown member "product""#))
        #expect(try #require(reason(#"{"products":["p1"],"all":true}"#)).contains(#"Unknown member "all""#))
        #expect(try #require(reason(#"{"products":"p1"}"#)).contains("must be an array"))
        #expect(try #require(reason(#"{"products":null}"#)).contains("must be an array"))
        #expect(try #require(reason(#"{"products":[]}"#)).contains("has 0 ids"))
        #expect(try #require(reason(#"{"products":["p1",2]}"#)).contains("products[1] is not a string"))
        #expect(try #require(reason(#"{"products":["p1",["p2"]]}"#)).contains("products[1] is not a string"))
        #expect(try #require(reason(#"{"products":["p1","no/slash"]}"#)).contains("products[1] is not a valid product id"))
        #expect(try #require(reason(#"{"products":[""]}"#)).contains("products[0] is not a valid product id"))
        #expect(try #require(reason(#"{"products":["\#(String(repeating: "x", count: 65))"]}"#)).contains("not a valid product id"))
        #expect(try #require(reason(#"{"products":["p1"],"products":["p2"]}"#)).contains("not JSON"))
        #expect(try #require(reason(#"{"products":["p1"]} x"#)).contains("not JSON"))
    }

    @Test func aThousandIdsAreReadAndOneMoreIsRefused() throws {
        func body(_ count: Int) -> String {
            #"{"products":["# + (0..<count).map { "\"p\($0)\"" }.joined(separator: ",") + "]}"
        }
        #expect(try read(body(1000)).get().count == 1000)
        #expect(try #require(reason(body(1001))).contains("has 1001 ids"))
        // Counted as listed: a thousand and one copies of one id are still too many.
        #expect(try #require(reason(#"{"products":["# + Array(repeating: #""p1""#, count: 1001).joined(separator: ",") + "]}")).contains("has 1001"))
    }

    /// Cut anywhere, a valid body is a clean refusal, never a partial invalidation.
    @Test func everyTruncationOfAValidBodyIsRefused() {
        let body = #"{"products": ["p1", "p2"]}"#
        let bytes = Array(body.utf8)
        for end in 0..<bytes.count {
            let cut = BulkInvalidationBody.products(contentType: "application/json", body: Array(bytes[..<end]))
            guard case .failure(.invalid) = cut else {
                Issue.record("\(end) bytes read as \(cut)")
                continue
            }
        }
    }

    @Test func onlyJSONIsRead() {
        #expect(read(#"{"products":["p1"]}"#, type: nil) == .failure(.unsupportedMediaType("")))
        #expect(read(#"{"products":["p1"]}"#, type: "text/plain") == .failure(.unsupportedMediaType("text/plain")))
        #expect(read(#"{"products":["p1"]}"#, type: "application/json; charset=latin1") == .failure(.unsupportedMediaType("application/json; charset=latin1")))
        #expect(read(#"{"products":["p1"]}"#, type: "application/jsonx") == .failure(.unsupportedMediaType("application/jsonx")))
        #expect(read(#"{"products":["p1"]}"#, type: "Application/JSON; Charset=\"UTF-8\"") == .success(["p1"]))
    }

    @Test func aBodyOverTheLimitIsTooLargeBeforeItIsRead() {
        let body = String(repeating: " ", count: BulkInvalidationBody.maxBytes) + #"{"products":["p1"]}"#
        #expect(read(body) == .failure(.tooLarge))
    }
}
