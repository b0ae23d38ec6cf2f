import App
import CatalogStub
import Foundation
import HTTP1
import Locking
import Synchronization
import Testing
import TestSupport

extension AppE2ETests {
    /// Issue "operable": after scripted scenarios the scraped counters have exact values, and
    /// every request leaves one JSON log line with the documented fields.
    @Suite struct Observability {
        @Test func oneMissThenOneHit() async throws {
            try await withE2E { env async throws in
                #expect(try await env.get("/products/p21").status == 200)
                #expect(try await env.get("/products/p21").status == 200)
                #expect(try await env.metric("cache_requests_total", ["result": "miss"]) == 1)
                #expect(try await env.metric("cache_requests_total", ["result": "hit"]) == 1)
                #expect(try await env.metric("loads_total") == 1)
                #expect(try await env.metric("http_requests_total",
                                             ["route": "/products/{id}", "method": "GET", "code": "200"]) == 2)
                #expect(try await env.metric("upstream_requests_total",
                                             ["upstream": "products", "outcome": "success"]) == 1)
            }
        }

        @Test func threeAttemptsAgainstA503Then200Upstream() async throws {
            try await withE2E(configure: { $0.service.retry.attempts = 3 }) { env async throws in
                env.stub.setFaults(FaultPlan(errorRate: 1, errorStatus: 503), for: .product, times: 2)
                #expect(try await env.get("/products/p22").status == 200)
                #expect(env.stub.stats().product == 3)
                #expect(try await env.metric("upstream_requests_total",
                                             ["upstream": "products", "outcome": "status_5xx"]) == 2)
                #expect(try await env.metric("upstream_requests_total",
                                             ["upstream": "products", "outcome": "success"]) == 1)
                #expect(try await env.metric("upstream_retries_total",
                                             ["upstream": "products", "reason": "status_5xx"]) == 2)
                #expect(try await env.metric("upstream_requests_total",
                                             ["upstream": "reviews", "outcome": "success"]) == 1)
            }
        }

        @Test func coalescedRequestsAreCounted() async throws {
            try await withE2E { env async throws in
                env.stub.pause(route: .product)
                let requests = (0..<5).map { _ in Task { try await env.get("/products/p23") } }
                try await env.eventuallyMetric("coalesced_requests_total") { $0 == 4 }
                env.stub.resume()
                for request in requests { #expect(try await request.value.status == 200) }
                #expect(try await env.metric("coalesced_requests_total") == 4)
                #expect(try await env.metric("loads_total") == 1)
                #expect(try await env.metric("cache_requests_total", ["result": "miss"]) == 5)
            }
        }

        @Test func everyRequestLogsOneJSONLineWithTheDocumentedFields() async throws {
            let output = Locked<String>("")
            try await withE2E(configure: { $0.logLevel = "info" }, logDestination: .collector { batch in
                output.withLock { $0 += String(decoding: batch, as: UTF8.self) }
            }) { env async throws in
                #expect(try await env.get("/products/p24", headers: ["X-Request-ID": "trace-24"]).status == 200)
                #expect(try await env.get("/products/p24").status == 200)
            }
            // Batches hold whole lines: what the app wrote until it stopped ends with a newline.
            let text = output.withLock { $0 }
            #expect(text.hasSuffix("\n"))
            let requests = text.split(separator: "\n").compactMap { line -> [String: Any]? in
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                #expect(object != nil, "not JSON: \(line)")
                return object?["msg"] as? String == "request" ? object : nil
            }
            #expect(requests.count == 2)
            let first = try #require(requests.first)
            #expect(first["method"] as? String == "GET")
            #expect(first["route"] as? String == "/products/{id}")
            #expect(first["status"] as? Int == 200)
            #expect((first["durationMs"] as? Double).map { $0 >= 0 } == true)
            #expect(first["cache"] as? String == "miss")
            #expect(first["upstreamAttempts"] as? Int == 3)
            #expect(first["requestId"] as? String == "trace-24")
            #expect(first["time"] is String)
            #expect(requests[1]["cache"] as? String == "hit")
            #expect(requests[1]["upstreamAttempts"] as? Int == 0)
        }

        /// Methods are the client's choice; the `method` label must not be, or each new method
        /// would add series that live forever.
        @Test func unknownMethodsShareOneMetricsLabel() async throws {
            try await withE2E { env async throws in
                let client = try await env.raw()
                defer { client.close() }
                for index in 0..<40 {
                    try await client.send("M\(index) /products/p1 HTTP/1.1\r\nHost: t\r\n\r\n")
                    #expect(try await client.readResponse().status == 405)
                }
                #expect(try await env.metric("http_requests_total", ["route": "unmatched", "method": "other", "code": "405"]) == 40)
                let scrape = try await env.metricsSnapshot()
                #expect(!scrape.text.contains("method=\"M1\""))
            }
        }

        @Test func theRequestIDGoesUpstream() async throws {
            try await withE2E { env async throws in
                #expect(try await env.get("/products/p25", headers: ["X-Request-ID": "upstream-trace"]).status == 200)
                #expect(env.stub.recentRequestIDs() == ["upstream-trace", "upstream-trace", "upstream-trace"])
            }
        }
    }
}
