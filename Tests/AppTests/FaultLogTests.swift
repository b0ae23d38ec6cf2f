@testable import App
import CatalogStub
import Foundation
import ProductDetails
import Testing
import TestSupport

extension AppE2ETests {
    /// Issue 19, item 4: faults at `warn` with their cause and upstream; `LOG_LEVEL=warn` shows
    /// faults and lifecycle lines only.
    @Suite struct FaultLog {
        static let lifecycle: Set<String> = [
            "listening", "configuration", "shutting down", "stopped", "no upstream configured: serving the demo catalog",
            "single-node mode: REDIS_URL is not set, the cache is this process's own", "fleet mode: replicas share a Redis cache",
        ]

        /// Every line is a fault (warn or error) or a lifecycle line.
        static func onlyFaultsAndLifecycle(_ log: LogLines) -> Bool {
            log.objects.allSatisfy { line in
                ["warn", "error"].contains(line["level"] as? String ?? "") || lifecycle.contains(line["msg"] as? String ?? "")
            }
        }

        @Test func aRefusingUpstreamIsAWarnWithItsCause() async throws {
            let log = LogLines()
            // Held for the whole test: a port only free a moment ago was once another suite's
            // server by the time the service called it (a 200, not a refusal).
            let closed = try RefusingLoopbackPort()
            try await withE2E(configure: {
                $0.logLevel = "warn"
                $0.productsURL = "http://127.0.0.1:\(closed.port)"
            }, logDestination: log.destination) { env async throws in
                #expect(try await env.get("/products/p61").status == 502)
                #expect(try await env.get("/products/p62").status == 502)
            }
            withExtendedLifetime(closed) {}
            let answers = log.requests(status: 502)
            #expect(answers.count == 2)
            #expect(answers.allSatisfy { $0["level"] as? String == "warn" && $0["cause"] as? String == "refused" && $0["upstream"] as? String == "products" })
            let failures = log.objects.filter { $0["msg"] as? String == "upstream call failed after retries" }
            #expect(failures.count == 2)
            #expect(failures.first?["upstream"] as? String == "products")
            #expect(failures.first?["cause"] as? String == "refused")
            #expect(failures.first?["attempts"] as? String == "3")
            // One line for the change, not one per failed attempt.
            let unreachable = log.objects.filter { $0["msg"] as? String == "upstream unreachable" }
            #expect(unreachable.count == 1)
            #expect(unreachable.first?["upstream"] as? String == "products")
            #expect(Self.onlyFaultsAndLifecycle(log))
        }

        @Test func aMalformedBodyIsAWarnWithItsCause() async throws {
            let log = LogLines()
            try await withE2E(configure: { $0.logLevel = "warn" }, logDestination: log.destination) { env async throws in
                env.stub.setFaults(FaultPlan(malformedJSON: true), for: .product)
                #expect(try await env.get("/products/p63").status == 502)
            }
            let answer = log.requests(status: 502).first
            #expect(answer?["cause"] as? String == "malformed body")
            #expect(answer?["upstream"] as? String == "products")
            #expect(log.objects.contains { $0["msg"] as? String == "upstream call failed after retries" && $0["cause"] as? String == "malformed body" })
            // The upstream answered: no connectivity change.
            #expect(!log.objects.contains { ($0["msg"] as? String ?? "").hasPrefix("upstream unreachable") })
            #expect(Self.onlyFaultsAndLifecycle(log))
        }

        @Test func aHangingUpstreamIsAWarnThatSaysTimedOut() async throws {
            let log = LogLines()
            try await withE2E(configure: {
                $0.logLevel = "warn"
                $0.service.retry.attempts = 1
                $0.service.retry.attemptTimeout = .milliseconds(50)
                $0.service.requestDeadline = .milliseconds(200)
            }, logDestination: log.destination) { env async throws in
                env.stub.setFaults(FaultPlan(hang: true), for: .product)
                #expect(try await env.get("/products/p64").status == 504)
                env.stub.clearFaults()
            }
            #expect(log.requests(status: 504).first?["cause"] as? String == "timed out")
            #expect(log.objects.contains { $0["msg"] as? String == "upstream unreachable" && $0["cause"] as? String == "timed out" })
        }

        /// A host name that does not resolve needs an operator: `error`.
        @Test func anUpstreamHostThatDoesNotResolveIsAnError() async throws {
            let log = LogLines()
            try await withE2E(configure: {
                $0.logLevel = "warn"
                $0.productsURL = "http://no-such-host.invalid:8080"
            }, logDestination: log.destination) { env async throws in
                #expect(try await env.get("/products/p65").status == 502)
            }
            #expect(log.requests(status: 502).first?["cause"] as? String == "dns")
            let line = log.objects.first { ($0["msg"] as? String ?? "").hasPrefix("upstream unreachable") }
            #expect(line?["level"] as? String == "error")
            #expect(line?["cause"] as? String == "dns")
        }
    }
}
