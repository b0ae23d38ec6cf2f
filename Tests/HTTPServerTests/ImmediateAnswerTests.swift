import HTTP1
import HTTPServer
import Testing
import TestSupport

/// Requests answered on the loop thread, with no task (`ResponderAnswer.now`), mixed with
/// requests that need one.
@Suite("Immediate answers over real sockets")
struct ImmediateAnswerTests {
    static func routes(_ router: inout TestRouter) {
        router.addImmediate(.get, "/now/{n}") { request, _ in .text(.ok, "now " + (request.pathParameters["n"] ?? "")) }
        router.add(.get, "/later/{n}") { request, _ in
            await Task.yield()
            return .text(.ok, "later " + (request.pathParameters["n"] ?? ""))
        }
        router.add(.get, "/maybe/{n}", responder: { request, context in
            guard request.pathParameters["n"] == "cached" else {
                return .later { (_, context: TestContext) in .text(.ok, "async on \(context.route)") }
            }
            return .now(.text(.ok, "immediate on \(context.route)"))
        })
    }

    @Test func pipelinedImmediateAndTaskAnswersKeepTheirOrder() async throws {
        try await withServer(loops: 1, routes: Self.routes) { _, port in
            let client = try await RawClient.connect(port: port)
            // 600 requests in one write: runs of immediate answers between task-made ones.
            let paths = (0..<600).map { $0 % 7 == 3 ? "/later/\($0)" : "/now/\($0)" }
            try await client.send(paths.map { "GET \($0) HTTP/1.1\r\nHost: t\r\n\r\n" }.joined())
            var texts: [String] = []
            for _ in paths { texts.append(try await client.readResponse().text) }
            #expect(texts == paths.map { $0.hasPrefix("/later/") ? "later " + $0.dropFirst(7) : "now " + $0.dropFirst(5) })
        }
    }

    @Test func aDeclinedImmediateAnswerGoesToTheAsyncHandler() async throws {
        try await withServer(routes: Self.routes) { _, port in
            let client = try await RawClient.connect(port: port)
            #expect(try await client.request("/maybe/cached").text == "immediate on /maybe/{n}")
            #expect(try await client.request("/maybe/other").text == "async on /maybe/{n}")
            #expect(try await client.request("/maybe/cached").text == "immediate on /maybe/{n}")
        }
    }
}
