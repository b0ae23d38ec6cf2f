import EventLoop
import HTTP1
import HTTPServer
import Testing
import TestSupport

@Suite("Router")
struct RouterTests {
    static func router() -> TestRouter {
        var router = TestRouter()
        router.add(.get, "/products/{id}") { _, _ in .text(.ok, "one") }
        router.add(.get, "/products") { _, _ in .text(.ok, "batch") }
        router.add(.get, "/products/special") { _, _ in .text(.ok, "literal") }
        router.add(.delete, "/cache/products/{id}") { _, _ in .text(.ok, "forget") }
        router.add(.get, "/products/{id}/reviews") { _, _ in .text(.ok, "reviews") }
        router.add(.get, "/") { _, _ in .text(.ok, "root") }
        return router
    }

    static func outcome(_ method: HTTPMethod, _ path: String) -> String {
        switch router().match(method: method, path: path) {
        case .found(let parameters, let pattern):
            return pattern + parameters.sorted { $0.name < $1.name }.map { " \($0.name)=\($0.value)" }.joined()
        case .methodNotAllowed(let allow):
            return "405 " + allow.map(\.rawValue).joined(separator: ",")
        case .notFound:
            return "404"
        }
    }

    @Test(arguments: [
        (HTTPMethod.get, "/products/p1", "/products/{id} id=p1"),
        (.get, "/products", "/products"),
        (.get, "/products/special", "/products/special"),
        (.get, "/products/p9/reviews", "/products/{id}/reviews id=p9"),
        // The literal "special" leads nowhere further: the parameter takes the segment.
        (.get, "/products/special/reviews", "/products/{id}/reviews id=special"),
        (.head, "/products/p1", "/products/{id} id=p1"),
        (.delete, "/cache/products/x", "/cache/products/{id} id=x"),
        (.get, "/", "/"),
        (.post, "/products/p1", "405 GET,HEAD"),
        (.get, "/cache/products/x", "405 DELETE"),
        (.get, "/products/", "404"),
        (.get, "/products//reviews", "404"),
        (.get, "/nothing", "404"),
        (.get, "products", "404"),
        (.get, "/products/p1/reviews/extra", "404"),
        (.get, "/products/%70%31", "/products/{id} id=p1"),
        (.get, "/products/a%2Fb", "/products/{id} id=a/b"),
        (.get, "/products/bad%zz", "/products/{id} id=bad%zz"),
        (.get, "/products/a+b", "/products/{id} id=a+b"),
    ])
    func matches(_ method: HTTPMethod, _ path: String, _ expected: String) {
        #expect(Self.outcome(method, path) == expected)
    }
}

@Suite("Router as the server's responder")
struct RouterResponderTests {
    static let router: TestRouter = {
        var router = TestRouter()
        router.addImmediate(.get, "/now/{n}") { request, _ in .text(.ok, "now " + (request.pathParameters["n"] ?? "")) }
        router.add(.get, "/maybe/{n}", responder: { request, _ in
            request.pathParameters["n"] == "cached" ? .now(.text(.ok, "immediate")) : .later { (_, _: TestContext) in .text(.ok, "async") }
        })
        router.add(.get, "/later") { _, _ in .text(.ok, "later") }
        return router
    }()

    /// What the router answers (when, status, route, body), the deferred work run to its end.
    static func respond(_ method: HTTPMethod, _ path: String) async throws -> String {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let head = HTTPRequestHead(method: method, target: path, path: path, version: .http1_1, headers: ["Host": "t"])
        var context = TestContext(loop: group.loops[0], receivedAt: .now)
        var request = HTTPRequest(head: head)
        let answer = router.respond(to: &request, context: &context)
        let when = if case .now = answer { "now" } else { "later" }
        let response = await answer.response(to: request, context: &context.core)
        return "\(when) \(response.status.code) \(context.route) " + String(decoding: response.body, as: UTF8.self).prefix(9)
    }

    @Test(arguments: [
        (HTTPMethod.get, "/now/7", "now 200 /now/{n} now 7"),
        (.head, "/now/7", "now 200 /now/{n} now 7"),
        (.get, "/maybe/cached", "now 200 /maybe/{n} immediate"),
        // The route defers: its work runs with the parameters and route bound in place.
        (.get, "/maybe/other", "later 200 /maybe/{n} async"),
        (.get, "/later", "later 200 /later later"),
        (.post, "/now/7", "now 405 unmatched {\"type\":\""),
        (.get, "/nowhere", "now 404 unmatched {\"type\":\""),
    ])
    func answersAtOnceOrDefers(_ method: HTTPMethod, _ path: String, _ expected: String) async throws {
        let got = try await Self.respond(method, path)
        #expect(got == expected, "got \(got)")
    }

    @Test func aDeferredRouteSeesItsOwnParameters() async throws {
        var router = TestRouter()
        router.add(.get, "/echo/{word}") { request, _ in .text(.ok, request.pathParameters["word"] ?? "") }
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        var context = TestContext(loop: group.loops[0], receivedAt: .now)
        var request = HTTPRequest(head: HTTPRequestHead(method: .get, target: "/echo/hi", path: "/echo/hi", version: .http1_1, headers: ["Host": "t"]))
        let response = await router.respond(to: &request, context: &context).response(to: request, context: &context.core)
        #expect(Array(response.body) == Array("hi".utf8))
    }
}

@Suite("Path parameters")
struct PathParametersTests {
    @Test func storesReplacesAndRemovesInOrder() {
        var parameters = PathParameters()
        #expect(parameters.isEmpty && parameters["id"] == nil)
        parameters["id"] = "p1"
        parameters["part"] = "reviews"
        parameters["page"] = "2"
        #expect(parameters.count == 3)
        #expect(parameters.map(\.name) == ["id", "part", "page"])
        parameters["part"] = "suggested"
        #expect(parameters["part"] == "suggested" && parameters.count == 3)
        parameters["id"] = nil
        #expect(parameters.map(\.name) == ["part", "page"])
        #expect(parameters["id"] == nil && parameters["page"] == "2")
        parameters["page"] = nil
        parameters["part"] = nil
        #expect(parameters.isEmpty && parameters.count == 0)
    }

    @Test func equalityIgnoresOrder() {
        let one: PathParameters = ["a": "1", "b": "2"]
        let other: PathParameters = ["b": "2", "a": "1"]
        #expect(one == other)
        #expect(one != ["a": "1"])
        #expect(one != ["a": "1", "b": "3"])
    }
}
