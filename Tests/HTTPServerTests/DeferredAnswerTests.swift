import HTTP1
import HTTPServer
import Locking
import PureTestSupport
import Synchronization
import Testing
import TestSupport
import Timekeeping

/// Requests answered by an ``AnswerPromise`` (`ResponderAnswer.deferred`): kept at once, from a
/// later turn of the loop, or handed to a task; abandoned when the client leaves.
@Suite("Deferred answers over real sockets")
struct DeferredAnswerTests {
    /// The promises `/hold` keeps back, and how many of them were abandoned.
    final class Held: Sendable {
        let promises = Locked<[TestPromise]>([])
        let abandoned = Atomic<Int>(0)

        /// Answers every held promise on its loop with `text`.
        func keepAll(_ text: String) {
            for promise in promises.withLock({ $0 }) {
                _ = promise.context.loop.execute { promise.answer(.text(.ok, text)) }
            }
        }
    }

    static func routes(_ held: Held) -> (inout TestRouter) -> Void {
        { router in
            router.addImmediate(.get, "/now/{n}") { request, _ in .text(.ok, "now " + (request.pathParameters["n"] ?? "")) }
            router.add(.get, "/deferred/{how}/{n}", responder: { request, _ in
                let n = request.pathParameters["n"] ?? ""
                let how = request.pathParameters["how"]
                return .deferred { (promise: TestPromise) in
                    switch how {
                    case "at-once":
                        promise.answer(.text(.ok, "at once \(n)"))
                    case "next-turn":
                        // A callback from a later turn of the loop, as a Redis reply's is.
                        _ = promise.context.loop.execute { promise.answer(.text(.ok, "next turn \(n)")) }
                    default:
                        promise.later { _, context in
                            await Task.yield()
                            return .text(.ok, "task \(n) on \(context.route)")
                        }
                    }
                }
            })
            router.add(.get, "/twice/{n}", responder: { request, _ in
                let n = request.pathParameters["n"] ?? ""
                return .deferred { (promise: TestPromise) in
                    promise.answer(.text(.ok, "first \(n)"))
                    // Kept again a turn later: by then the next request may be waiting.
                    _ = promise.context.loop.execute { promise.answer(.text(.ok, "second \(n)")) }
                }
            })
            router.add(.get, "/hold", responder: { _, _ in
                .deferred { (promise: TestPromise) in
                    promise.whenAbandoned { held.abandoned.add(1, ordering: .relaxed) }
                    held.promises.withLock { $0.append(promise) }
                }
            })
        }
    }

    @Test func pipelinedDeferredAnswersKeepTheirOrder() async throws {
        try await withServer(loops: 1, routes: Self.routes(Held())) { _, port in
            let client = try await RawClient.connect(port: port)
            let kinds = ["at-once", "next-turn", "task"]
            let paths = (0..<300).map { $0 % 4 == 0 ? "/now/\($0)" : "/deferred/\(kinds[$0 % 3])/\($0)" }
            try await client.send(paths.map { "GET \($0) HTTP/1.1\r\nHost: t\r\n\r\n" }.joined())
            var texts: [String] = []
            for _ in paths { texts.append(try await client.readResponse().text) }
            let expected = paths.enumerated().map { index, path -> String in
                if index % 4 == 0 { return "now \(index)" }
                switch kinds[index % 3] {
                case "at-once": return "at once \(index)"
                case "next-turn": return "next turn \(index)"
                default: return "task \(index) on /deferred/{how}/{n}"
                }
            }
            #expect(texts == expected)
        }
    }

    @Test func aPromiseKeptTwiceAnswersOnlyItsOwnRequest() async throws {
        try await withServer(loops: 1, routes: Self.routes(Held())) { _, port in
            let client = try await RawClient.connect(port: port)
            try await client.send((0..<50).map { "GET /twice/\($0) HTTP/1.1\r\nHost: t\r\n\r\n" }.joined())
            for index in 0..<50 {
                #expect(try await client.readResponse().text == "first \(index)")
            }
            #expect(try await client.request("/now/end").text == "now end")
        }
    }

    @Test func aClientLeavingAbandonsThePromiseAndItsLateAnswerIsDropped() async throws {
        let held = Held()
        try await withServer(loops: 1, routes: Self.routes(held)) { _, port in
            let leaving = try await RawClient.connect(port: port)
            try await leaving.sendRequest("/hold")
            await eventually(.live) { held.promises.withLock { $0.count } == 1 }
            #expect(held.abandoned.load(ordering: .relaxed) == 0)
            leaving.close()
            await eventually(.live) { held.abandoned.load(ordering: .relaxed) == 1 }
            held.keepAll("too late")

            // A promise kept after its client left writes nothing anywhere: the next client gets
            // its own answer, and a held request that is answered is not abandoned.
            let staying = try await RawClient.connect(port: port)
            #expect(try await staying.request("/now/1").text == "now 1")
            try await staying.sendRequest("/hold")
            await eventually(.live) { held.promises.withLock { $0.count } == 2 }
            held.keepAll("kept")
            #expect(try await staying.readResponse().text == "kept")
            staying.close()
            #expect(held.abandoned.load(ordering: .relaxed) == 1)
        }
    }

    /// A deferred request still unanswered when the grace period ends gets the shutdown's 503,
    /// its promise is abandoned (its work cancelled), and a late keeping is dropped: the
    /// observer sees one answer.
    @Test func graceExpiryAnswersAHeldDeferredRequest503AndAbandonsItsPromise() async throws {
        let held = Held()
        let observed = Locked<[(Int, AnswerSource)]>([])
        let time = ManualTimeSource()
        try await withServer(loops: 1, time: time, routes: Self.routes(held), answered: { response, request in
            observed.withLock { $0.append((response.status.code, request.source)) }
        }) { server, port in
            let client = try await RawClient.connect(port: port)
            try await client.sendRequest("/hold")
            await eventually(.live) { held.promises.withLock { $0.count } == 1 }
            _ = try await ServerShutdownTests.answerAfterTheGracePeriod(server, time, client)
            #expect(held.abandoned.load(ordering: .relaxed) == 1)
            held.keepAll("too late")
            #expect(try await client.readsEndOfStream())
        }
        let answers = observed.withLock { $0 }
        #expect(answers.count == 1)
        #expect(answers.first?.0 == 503)
        #expect(answers.first?.1 == .shutdown)
    }

    @Test func aDeferredRequestHoldsAnInFlightSlot() async throws {
        let held = Held()
        try await withServer(configure: { $0.maxInFlightRequests = 1 }, loops: 1, routes: Self.routes(held)) { _, port in
            let holding = try await RawClient.connect(port: port)
            try await holding.sendRequest("/hold")
            await eventually(.live) { held.promises.withLock { $0.count } == 1 }
            let refused = try await RawClient.connect(port: port)
            #expect(try await refused.request("/deferred/at-once/1").status == 503)
            // Refused before its start ran: nothing was held for it.
            #expect(held.promises.withLock { $0.count } == 1)
            held.keepAll("done")
            #expect(try await holding.readResponse().text == "done")
            let next = try await RawClient.connect(port: port)
            #expect(try await next.request("/deferred/at-once/2").text == "at once 2")
        }
    }
}
