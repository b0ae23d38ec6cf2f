import App
import CatalogStub
import PureTestSupport
import Testing
import TestSupport

/// One upstream fault of the fault suite, and what its script expects: the status of every
/// answer under it, how long they may take, and the fault's own accounting. Everything else
/// (warm-up, flood, bounds, health, recovery) is the script's (`FaultSuite.followsTheScript`).
struct FaultCase: Sendable, CustomTestStringConvertible {
    let name: String
    let deadline: Duration
    /// Settings beyond the suite's shared ones (`FaultSuite.faultSettings`).
    var configure: @Sendable (inout AppConfiguration) -> Void = { _ in }
    let plan: FaultPlan
    let route: StubRoute
    /// The flood's fault when it differs from the probe's.
    var floodPlan: FaultPlan?
    /// Every answer's status, the probe's and the flood's.
    let status: Int
    /// The probe's answer takes at least this long (the fault's own delay)…
    var probeAtLeast: Duration = .zero
    /// …and less than this.
    let probeWithin: Duration
    let floodConcurrency: Int
    /// The flood's slowest answer takes less than this.
    let floodWithin: Duration
    /// This fault's checks right after the probe (its attempts and retries).
    var afterProbe: @Sendable (E2E, Reply) async throws -> Void = { _, _ in }
    /// This fault's accounting after the flood, with `loads` pages asked for under it.
    var accounting: @Sendable (E2E, MetricsSnapshot, FloodResult, _ loads: Int) async throws -> Void = { _, _, _, _ in }

    var testDescription: String { name }

    static func upstream(_ name: String, _ outcome: String) -> [String: String] {
        ["upstream": name, "outcome": outcome]
    }

    static func retries(_ name: String, _ reason: String) -> [String: String] {
        ["upstream": name, "reason": reason]
    }

    /// The probe's page (`p2`), whole, as the catalog has it.
    static func expectTheWholePage(_ reply: Reply, _ env: E2E) throws {
        let expected = try env.expectedDetail("p2")
        #expect(try reply.json() == expected)
    }

    static let all: [FaultCase] = [
        latencyWithinTheDeadline, latencyBeyondTheDeadline, halfOfEveryUpstreamsAnswersFailing,
        resetMidBody, malformedJSON, oversizedJSON, neverAnswers,
    ]

    static let latencyWithinTheDeadline = FaultCase(
        name: "a latency spike within the deadline is 200", deadline: .seconds(2),
        configure: { $0.service.retry.attemptTimeout = .seconds(1) },
        plan: FaultPlan(latencyMs: 50), route: .all, status: 200,
        probeAtLeast: .milliseconds(50), probeWithin: .seconds(2), floodConcurrency: 20, floodWithin: .seconds(6),
        afterProbe: { env, reply in try expectTheWholePage(reply, env) },
        accounting: { _, metrics, flood, loads in
            #expect(flood.replies.allSatisfy { (try? $0.reply.json()["missing"]) == nil }, "a degraded page under latency alone")
            for name in ["products", "reviews", "suggestions"] {
                // One successful call per load and upstream (plus the warm-up's).
                let value = try metrics.value("upstream_requests_total", upstream(name, "success"))
                #expect(value == Double(1 + loads))
            }
        })

    static let latencyBeyondTheDeadline = FaultCase(
        name: "latency beyond the deadline is 504 within it", deadline: .milliseconds(300),
        // The attempt time-out is longer than the deadline: the deadline is what ends it.
        configure: { $0.service.retry.attemptTimeout = .seconds(1) },
        plan: FaultPlan(latencyMs: 2_000), route: .product, status: 504,
        probeAtLeast: .milliseconds(270), probeWithin: .milliseconds(1500), floodConcurrency: 20, floodWithin: .milliseconds(1500),
        // The only attempt ran into the deadline: no room for a retry.
        afterProbe: { env, _ in #expect(env.stub.stats().product == 1) },
        accounting: { env, metrics, _, loads in
            let attempts = try metrics.value("upstream_requests_total", upstream("products", "timed_out"))
            let retried = try metrics.value("upstream_retries_total", retries("products", "timed_out"))
            #expect(metrics.sum("upstream_requests_total", where: ["upstream": "products"]) == attempts + 1, "only time-outs, and the warm-up")
            // One attempt per load, plus the few retries of the finding that
            // `aDeadlineBoundAttemptIsNotFollowedByARetryUnderLoad` pins down.
            #expect(attempts >= Double(loads) && attempts <= Double(loads) + retried)
            // Every delayed product request was given up at the stub, none left sleeping (the
            // total also counts sibling requests whose client left before the stub read them).
            await eventually(.live) { env.stub.stats().abandonedProduct == env.stub.stats().product }
        })

    static let halfOfEveryUpstreamsAnswersFailing = FaultCase(
        name: "half of every upstream's answers failing is 200 with the retries counted", deadline: .seconds(2),
        // The default budget (retries ≤ 20% of requests + 10) is meant to refuse retrying a 50%
        // outage at volume; this case is about retries absorbing flapping, so the budget allows
        // one retry per request.
        configure: { $0.service.retryBudget = .init(ratio: 1.0, floor: 10) },
        // 0.5 alternates per route: with one load at a time, a failed call's retry succeeds.
        plan: FaultPlan(errorRate: 0.5), route: .all, status: 200,
        probeWithin: .seconds(2), floodConcurrency: 1, floodWithin: .seconds(2),
        afterProbe: { env, reply in try expectTheWholePage(reply, env) },
        accounting: { env, metrics, flood, loads in
            #expect(flood.replies.allSatisfy { (try? $0.reply.json()["missing"]) == nil }, "a degraded page")
            let stats = env.stub.stats()
            for (name, received) in [("products", stats.product), ("reviews", stats.reviews), ("suggestions", stats.suggested)] {
                let failed = try metrics.value("upstream_requests_total", upstream(name, "status_5xx"))
                let succeeded = try metrics.value("upstream_requests_total", upstream(name, "success"))
                #expect(succeeded == Double(1 + loads), "\(name)")
                // Half of the answers failed (0.5 alternates: each load's first call fails, its
                // retry succeeds, give or take the first), and every failure was retried.
                #expect(abs(failed - succeeded + 1) <= 1, "\(name): \(failed) failures, \(succeeded) successes")
                #expect(try metrics.value("upstream_retries_total", retries(name, "status_5xx")) == failed, "\(name)")
                #expect(Double(received) == failed + succeeded - 1, "\(name): the stub saw \(received)")
                #expect(try metrics.value("retry_budget_exhausted_total", ["upstream": name]) == 0)
            }
        })

    static let resetMidBody = FaultCase(
        name: "a reset mid-body is 502 after retries", deadline: .seconds(2),
        plan: FaultPlan(resetMidBody: true), route: .product, status: 502,
        probeWithin: .seconds(2), floodConcurrency: 20, floodWithin: .seconds(6),
        afterProbe: { env, _ in
            #expect(env.stub.stats().product == 3)
            let first = try await env.metricsSnapshot()
            #expect(try first.value("upstream_requests_total", upstream("products", "connection_reset")) == 3)
            #expect(try first.value("upstream_retries_total", retries("products", "connection_reset")) == 2)
        },
        accounting: { env, metrics, _, loads in
            let attempts = try metrics.value("upstream_requests_total", upstream("products", "connection_reset"))
            let retried = try metrics.value("upstream_retries_total", retries("products", "connection_reset"))
            #expect(attempts == Double(loads) + retried)
            #expect(retried >= 2 && retried <= Double(2 * loads))
            #expect(Double(env.stub.stats().product) >= attempts, "every reset attempt reached the stub")
        })

    static let malformedJSON = FaultCase(
        name: "malformed JSON is 502 and not retried", deadline: .seconds(2),
        plan: FaultPlan(malformedJSON: true), route: .product, status: 502,
        probeWithin: .seconds(2), floodConcurrency: 20, floodWithin: .seconds(6),
        accounting: { env, metrics, _, loads in
            let value = try metrics.value("upstream_requests_total", upstream("products", "malformed_body"))
            #expect(value == Double(loads))
            #expect(metrics.sum("upstream_retries_total") == 0)
            #expect(env.stub.stats().product == loads, "one attempt per load")
            #expect(env.app.client.statistics.peakOpenConnections > 0)
        })

    static let oversizedJSON = FaultCase(
        name: "oversized JSON beyond the client's limit is 502 and not retried",
        // Generous, and one attempt may use all of it: only the size limit may fail these loads,
        // even when a sanitizer build makes the stub slow to build its bodies (a timed out
        // attempt would rightly be retried, which is not what this case is about).
        deadline: .seconds(10),
        configure: {
            $0.service.retry.attemptTimeout = .seconds(10)
            $0.client.maxResponseBytes = 256 << 10
        },
        // 4 MiB of valid JSON (the stub's default oversized body), sixteen times the limit.
        plan: FaultPlan(oversized: true), route: .product,
        // A 4 MiB answer costs the (debug) stub about 0.3 s to build on its one loop, and 200 of
        // them would only test the stub: the flood's bodies are 320 KiB, still over the limit.
        floodPlan: FaultPlan(oversized: true, oversizedBytes: 320 << 10),
        status: 502, probeWithin: .seconds(10), floodConcurrency: 8, floodWithin: .seconds(30),
        afterProbe: { env, _ in #expect(env.stub.stats().product == 1, "not retried") },
        accounting: { env, metrics, _, loads in
            // Refused by the body limit, which the client reports as a malformed answer.
            let value = try metrics.value("upstream_requests_total", upstream("products", "malformed_body"))
            #expect(value == Double(loads))
            #expect(metrics.sum("upstream_retries_total") == 0)
            #expect(env.stub.stats().product == loads, "one attempt per load")
        })

    static let neverAnswers = FaultCase(
        name: "an upstream that accepts and never answers is 504 within the deadline", deadline: .milliseconds(300),
        configure: { $0.service.retry.attemptTimeout = .milliseconds(100) },
        plan: FaultPlan(hang: true), route: .product, status: 504,
        probeWithin: .milliseconds(1500), floodConcurrency: 20, floodWithin: .milliseconds(1500),
        afterProbe: { env, _ in
            let first = try await env.metricsSnapshot()
            let probeAttempts = try first.value("upstream_requests_total", upstream("products", "timed_out"))
            #expect((2...3).contains(Int(probeAttempts)), "\(probeAttempts) attempts of 100 ms in a 300 ms deadline")
            #expect(try first.value("upstream_retries_total", retries("products", "timed_out")) >= probeAttempts - 1)
        },
        accounting: { env, metrics, _, loads in
            let attempts = try metrics.value("upstream_requests_total", upstream("products", "timed_out"))
            let retried = try metrics.value("upstream_retries_total", retries("products", "timed_out"))
            #expect(attempts >= Double(loads) && attempts <= Double(loads) + retried)
            // Every hanging product request was given up at the stub, none left open (the total
            // also counts sibling requests whose client left before the stub read them).
            await eventually(.live) { env.stub.stats().abandonedProduct == env.stub.stats().product }
        })
}
