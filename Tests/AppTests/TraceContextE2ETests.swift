import App
import CatalogStub
import Foundation
import HTTP1
import ProductDetails
import PureTestSupport
import Testing
import TestSupport

extension AppE2ETests {
    /// Issue 19, item 12: W3C Trace Context reaches every upstream attempt and the log.
    @Suite struct TraceContextPropagation {
        static let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
        static let incoming = "00-\(traceID)-00f067aa0ba902b7-01"

        /// `(trace id, parent id, flags)` of a `traceparent` the stub received.
        static func fields(_ traceparent: String?) -> (String, String, String)? {
            guard let parts = traceparent?.split(separator: "-"), parts.count == 4, parts[0] == "00" else { return nil }
            return (String(parts[1]), String(parts[2]), String(parts[3]))
        }

        @Test func eachUpstreamAttemptCarriesTheTraceWithAFreshSpan() async throws {
            let log = LogLines()
            try await withE2E(configure: { $0.logLevel = "info"; $0.service.retry.attempts = 3 }, logDestination: log.destination) { env async throws in
                env.stub.setFaults(FaultPlan(errorRate: 1, errorStatus: 503), for: .product, times: 2)
                let reply = try await env.get(
                    "/products/p71", headers: ["traceparent": Self.incoming, "tracestate": "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"])
                #expect(reply.status == 200)
                let received = env.stub.recentTraceHeaders()
                // Three product attempts (two 503s, then 200), one reviews, one suggestions.
                #expect(received.count == 5)
                #expect(received.filter { $0.route == .product }.count == 3)
                let spans = received.compactMap { Self.fields($0.traceparent) }
                #expect(spans.count == 5)
                #expect(spans.allSatisfy { $0.0 == Self.traceID && $0.2 == "01" })
                #expect(Set(spans.map(\.1)).count == 5, "a new span id per attempt")
                #expect(!spans.contains { $0.1 == "00f067aa0ba902b7" }, "never the caller's own span id")
                #expect(received.allSatisfy { $0.tracestate == "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE" })
            }
            let line = try #require(log.requests(status: 200).first)
            #expect(line["traceId"] as? String == Self.traceID)
            #expect(line["requestId"] is String)
        }

        @Test(arguments: [nil, "00-\(traceID)-00f067aa0ba902b7", "00-00000000000000000000000000000000-00f067aa0ba902b7-01"])
        func withoutAUsableTraceparentANewTraceStarts(_ traceparent: String?) async throws {
            let log = LogLines()
            try await withE2E(configure: { $0.logLevel = "info" }, logDestination: log.destination) { env async throws in
                var headers: HTTPHeaders = ["tracestate": "rojo=1"]
                if let traceparent { headers.add(name: "traceparent", value: traceparent) }
                #expect(try await env.get("/products/p72", headers: headers).status == 200)
                let received = env.stub.recentTraceHeaders()
                let spans = received.compactMap { Self.fields($0.traceparent) }
                #expect(spans.count == 3)
                let started = try #require(spans.first?.0)
                #expect(started.count == 32 && started != Self.traceID && started != String(repeating: "0", count: 32))
                #expect(spans.allSatisfy { $0.0 == started && $0.2 == "00" })
                // tracestate goes with a traceparent that could be read, never alone.
                #expect(received.allSatisfy { $0.tracestate == nil })
            }
            let line = try #require(log.requests(status: 200).first)
            #expect((line["traceId"] as? String)?.count == 32)
            #expect(line["traceId"] as? String != Self.traceID)
        }

        /// The load runs in the trace of the request that started it; a request joining it logs
        /// its own trace id and the load's.
        @Test func aCoalescedLoadCarriesTheTraceOfTheRequestThatStartedIt() async throws {
            let log = LogLines()
            let joinerTrace = "0af7651916cd43dd8448eb211c80319c"
            try await withE2E(configure: { $0.logLevel = "info" }, logDestination: log.destination) { env async throws in
                env.stub.pause(route: .product)
                let starter = Task { try await env.get("/products/p73", headers: ["traceparent": Self.incoming, "X-Request-ID": "starter"]) }
                await eventually(.live) { env.stub.pausedRequests >= 1 }
                let joiner = Task {
                    try await env.get("/products/p73", headers: ["traceparent": "00-\(joinerTrace)-b7ad6b7169203331-01", "X-Request-ID": "joiner"])
                }
                try await env.eventuallyMetric("coalesced_requests_total") { $0 == 1 }
                env.stub.resume()
                #expect(try await starter.value.status == 200)
                #expect(try await joiner.value.status == 200)
                let spans = env.stub.recentTraceHeaders().compactMap { Self.fields($0.traceparent) }
                #expect(spans.count == 3)
                #expect(spans.allSatisfy { $0.0 == Self.traceID })
            }
            let lines = log.requests(status: 200)
            let starterLine = try #require(lines.first { $0["requestId"] as? String == "starter" })
            let joinerLine = try #require(lines.first { $0["requestId"] as? String == "joiner" })
            #expect(starterLine["traceId"] as? String == Self.traceID)
            #expect(starterLine["loadTraceId"] == nil)
            #expect(joinerLine["traceId"] as? String == joinerTrace)
            #expect(joinerLine["loadTraceId"] as? String == Self.traceID)
        }
    }
}
