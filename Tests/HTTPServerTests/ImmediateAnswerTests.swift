import HTTP1
import HTTPServer
import Testing
import TestSupport

/// Requests answered on the loop thread, with no task (`HTTPServer(immediate:)`), mixed with
/// requests that need one.
@Suite("Immediate answers over real sockets")
struct ImmediateAnswerTests {
    static func routes(_ router: inout Router) {
        router.addImmediate(.get, "/now/{n}") { request, _ in .text(.ok, "now " + (request.pathParameters["n"] ?? "")) }
        router.add(.get, "/later/{n}") { request, _ in
            await Task.yield()
            return .text(.ok, "later " + (request.pathParameters["n"] ?? ""))
        }
        router.add(.get, "/maybe/{n}", immediate: { request, context in
            request.pathParameters["n"] == "cached" ? .text(.ok, "immediate on \(context.route)") : nil
        }) { request, context in .text(.ok, "async on \(context.route)") }
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

    /// The idle timer is not re-armed per answer; it must still measure idleness from the last
    /// answer, not from when the connection first went idle. (The bug closed the connection about
    /// `idleTimeout` after its first answer, while requests still came every 100 ms.)
    @Test func aConnectionBusyPastItsIdleTimeoutStaysOpenThenClosesWhenIdle() async throws {
        let idleTimeout = Duration.seconds(1)
        try await withServer(configure: { $0.idleTimeout = idleTimeout }, routes: Self.routes) { _, port in
            let connecting = ContinuousClock.now
            let client = try await RawClient.connect(port: port)
            try await expectOpenWhileBusyThenClosedWhenIdle(
                client, connecting: connecting, idleTimeout: idleTimeout, pause: .milliseconds(100)) { "/now/\($0)" }
        }
    }

    /// The read timeout counts from a request's first byte. A request answered at once must take
    /// its timer with it, or the next request, begun in the same read, would inherit its start.
    ///
    /// With that bug the second request got its 408 about 300 ms after its first byte. A request
    /// may time out here only after a whole read timeout since its first byte was sent: a slow
    /// host can stretch the sleeps past the timeout, and then a 408 (or the close after it) is right.
    @Test func aPipelinedRequestGetsAReadTimeoutOfItsOwn() async throws {
        let readTimeout = Duration.seconds(1)
        try await withServer(configure: { $0.requestReadTimeout = readTimeout }, routes: Self.routes) { _, port in
            let client = try await RawClient.connect(port: port)
            let firstSent = ContinuousClock.now
            try await client.send("GET /now/1 HTTP/1.1\r\nHo")
            try await Task.sleep(for: .milliseconds(700))
            let secondSent = ContinuousClock.now
            try await client.send("st: t\r\n\r\nGET /now/2 HTTP/1.1\r\nHo")
            let first = try await client.readResponse()
            if first.status == 408 {
                #expect(firstSent.duration(to: .now) >= readTimeout, "the first request timed out early")
                return
            }
            #expect(first.text == "now 1")
            try await Task.sleep(for: .milliseconds(700))
            let second: TestResponse
            do {
                try await client.send("st: t\r\n\r\n")
                second = try await client.readResponse()
            } catch {
                #expect(secondSent.duration(to: .now) >= readTimeout, "the connection ended \(secondSent.duration(to: .now)) after the second request began: \(error)")
                return
            }
            if second.status == 408 {
                #expect(secondSent.duration(to: .now) >= readTimeout, "the second request timed out \(secondSent.duration(to: .now)) after its first byte")
            } else {
                #expect(second.text == "now 2")
            }
        }
    }
}
