import App
import CatalogStub
import EventLoop
import Foundation
import HTTP1
import Locking
import PureTestSupport
import Testing
import TestSupport

extension AppE2ETests {
    /// Issue 19, items 1 and 2: every answer, whoever gives it, is counted once, logged once and
    /// carries `X-Request-ID`.
    @Suite struct EveryAnswer {
        @Test func anOverload503IsCountedLoggedAndCarriesTheClientsRequestID() async throws {
            let log = LogLines()
            try await withE2E(configure: { $0.server.maxInFlightRequests = 1; $0.logLevel = "info" }, logDestination: log.destination) { env in
                env.stub.pause(route: .product)
                let holding = Task { try await env.get("/products/p31") }
                await eventually(.live) { env.stub.pausedRequests >= 1 }
                let refused = try await env.get("/products/p32", headers: ["X-Request-ID": "shed-1"])
                #expect(refused.status == 503)
                #expect(refused.header("X-Request-ID") == "shed-1")
                #expect(try await env.metric("http_requests_total", ["route": "/products/{id}", "method": "GET", "code": "503"]) == 1)
                env.stub.resume()
                #expect(try await holding.value.status == 200)
            }
            let lines = log.requests(status: 503)
            #expect(lines.count == 1)
            #expect(lines.first?["requestId"] as? String == "shed-1")
            #expect(lines.first?["answeredBy"] as? String == "overload")
            #expect(lines.first?["level"] as? String == "warn")
        }

        /// Each refusal on a connection of its own (the server closes it after answering).
        @Test(arguments: [
            ("GARBAGE\r\n\r\n", 400),
            ("GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: t\r\n\r\n", 414),
            ("GET / HTTP/1.1\r\nHost: t\r\nX-Big: " + String(repeating: "b", count: 40_000) + "\r\n\r\n", 431),
            ("GET / HTTP/1.1\r\nHost: t\r\nX-Request-ID: body-1\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
            ("GET / HTTP/3.0\r\nHost: t\r\n\r\n", 505),
            ("POST /products HTTP/1.1\r\nHost: t\r\nX-Request-ID: big-1\r\nContent-Length: 2000000\r\n\r\n", 413),
        ])
        func anHTTPLayerRefusalIsCountedLoggedAndCarriesARequestID(_ request: String, _ status: Int) async throws {
            let log = LogLines()
            let answeredID = Locked<String?>(nil)
            try await withE2E(configure: { $0.logLevel = "info" }, logDestination: log.destination) { env in
                let client = try await env.raw()
                defer { client.close() }
                try await client.send(request)
                let answer = try await client.readResponse()
                #expect(answer.status == status)
                let id = try #require(answer.header("X-Request-ID"))
                #expect(!id.isEmpty)
                answeredID.withLock { $0 = id }
                // A refusal after the header section was read (its framing) still answers to it.
                for sent in ["big-1", "body-1"] where request.contains("X-Request-ID: \(sent)") { #expect(id == sent) }
                let counted = try await env.metricsSnapshot().text.split(separator: "\n").filter {
                    $0.hasPrefix("product_details_http_requests_total{") && $0.contains(#"route="unmatched""#)
                        && $0.contains(#"code="\#(status)""#)
                }
                #expect(counted.count == 1)
                #expect(counted.first?.hasSuffix(" 1") == true)
            }
            let lines = log.requests(status: status)
            #expect(lines.count == 1)
            #expect(lines.first?["answeredBy"] as? String == "http")
            #expect(lines.first?["requestId"] as? String == answeredID.withLock { $0 })
        }

        @Test func aReadTimeoutIsCountedLoggedAndCarriesARequestID() async throws {
            let log = LogLines()
            try await withE2E(configure: {
                $0.logLevel = "info"
                $0.server.requestReadTimeout = .milliseconds(50)
            }, logDestination: log.destination) { env in
                let client = try await env.raw()
                defer { client.close() }
                // Ends inside a line: the read timeout runs from the request's first byte.
                try await client.send("GET /products/p1 HTTP/1.1\r\nX-Request-ID: slow-1\r\nHos")
                let answer = try await client.readResponse()
                #expect(answer.status == 408)
                #expect(answer.header("X-Request-ID")?.isEmpty == false)
                #expect(try await env.metric("http_requests_total", ["route": "unmatched", "method": "other", "code": "408"]) == 1)
            }
            #expect(log.requests(status: 408).first?["answeredBy"] as? String == "http-timeout")
        }

        /// A client sending garbage as fast as it can decides how many refusals there are; their
        /// lines are rate-limited, and the counter still counts every one.
        @Test func refusalLinesAreRateLimitedButEveryRefusalIsCounted() async throws {
            let log = LogLines()
            try await withE2E(configure: { $0.logLevel = "info" }, logDestination: log.destination) { env in
                for _ in 0..<100 {
                    let client = try await env.raw()
                    try await client.send("GARBAGE\r\n\r\n")
                    #expect(try await client.readResponse().status == 400)
                    client.close()
                }
                #expect(try await env.metric("http_requests_total", ["route": "unmatched", "method": "other", "code": "400"]) == 100)
            }
            #expect(log.requests(status: 400).count < 100)
        }
    }
}
