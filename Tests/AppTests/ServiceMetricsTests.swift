@testable import App
import EventLoop
import ProductDetails
import Testing

@Suite("Service metrics")
struct ServiceMetricsTests {
    /// A handler that outlives its stopped loop (the app stopping under a slow load) still counts
    /// its answer, from whatever thread it ends on. (It trapped: "LoopLocal used off its loop".)
    @Test func aRequestAnsweredAfterItsLoopStoppedIsStillCounted() throws {
        let group = try EventLoopGroup(loopCount: 1)
        let metrics = ServiceMetrics(group: group)
        group.shutdown()
        metrics.request(on: group.loops[0], route: "/products/{id}", method: "GET", status: 200, duration: .milliseconds(3))
        let text = String(decoding: metrics.registry.render(), as: UTF8.self)
        #expect(text.contains(#"product_details_http_requests_total{route="/products/{id}",method="GET",code="200"} 1"#))
    }

    /// Every answer the contract documents is a series at zero before any request, and no other
    /// request series exists then: the pre-registered list and `openapi.yaml` cannot drift apart.
    @Test func everyDocumentedAnswerIsCountedFromZero() throws {
        let documented = try OpenAPIAnswers.read(OpenAPIAnswers.contractFile)
        #expect(documented.count > 20, "openapi.yaml read as \(documented.count) answers: has its layout changed?")
        let exposed = try Self.freshExposition()
        var atStart = Set<OpenAPIAnswers>()
        for line in exposed where line.hasPrefix("product_details_http_requests_total{") {
            let labels = Self.labels(of: line)
            let answer = try #require(labels["route"].flatMap { route in
                labels["method"].flatMap { method in labels["code"].flatMap(Int.init).map { OpenAPIAnswers(route: route, method: method, code: $0) } }
            })
            #expect(line.hasSuffix("} 0"), "\(line)")
            atStart.insert(answer)
        }
        #expect(atStart.subtracting(documented).sorted(by: Self.order) == [], "counted, not in openapi.yaml")
        #expect(documented.subtracting(atStart).sorted(by: Self.order) == [], "in openapi.yaml, not counted from zero")
    }

    /// Each upstream's attempts by every outcome, and its retries by every retryable reason,
    /// exist at zero before the first call.
    @Test(arguments: Upstream.allCases)
    func upstreamOutcomesAndRetriesAreCountedFromZero(_ upstream: Upstream) throws {
        let exposed = Set(try Self.freshExposition())
        let failures: [UpstreamFailure] = [
            .connectFailed, .hostNotFound, .connectionReset, .timedOut, .status(429, retryAfter: .seconds(1)),
            .status(403, retryAfter: nil), .status(503, retryAfter: nil), .status(504, retryAfter: nil), .status(501, retryAfter: nil),
            .status(302, retryAfter: nil), .notFound, .malformedBody("x"), .cancelled, .circuitOpen,
        ]
        // A label names a retry reason when any failure it stands for is retried (503, not 501).
        let retryReasons = Set(failures.filter(\.isRetryable).map(\.label))
        let name = upstream.rawValue
        #expect(exposed.contains(#"product_details_upstream_requests_total{upstream="\#(name)",outcome="success"} 0"#))
        for failure in failures {
            #expect(exposed.contains(#"product_details_upstream_requests_total{upstream="\#(name)",outcome="\#(failure.label)"} 0"#))
            let retry = #"product_details_upstream_retries_total{upstream="\#(name)",reason="\#(failure.label)"} 0"#
            #expect(exposed.contains(retry) == retryReasons.contains(failure.label), "\(retry)")
        }
    }

    /// An attempt and a retry count into the series made at start.
    @Test func attemptsAndRetriesCountIntoTheSeriesMadeAtStart() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let metrics = ServiceMetrics(group: group)
        metrics.upstreamAttempt(.reviews, failure: .status(503, retryAfter: nil), duration: .milliseconds(2))
        metrics.retry(.reviews, reason: UpstreamFailure.status(503, retryAfter: nil).label)
        let text = String(decoding: metrics.registry.render(), as: UTF8.self)
        #expect(text.contains(#"product_details_upstream_requests_total{upstream="reviews",outcome="status_5xx"} 1"#))
        #expect(text.contains(#"product_details_upstream_retries_total{upstream="reviews",reason="status_5xx"} 1"#))
        #expect(text.contains(#"product_details_upstream_request_duration_seconds_count{upstream="reviews"} 1"#))
    }

    /// Loads the shared cache answered are loads, not upstream loads: retry amplification divides
    /// upstream attempts by the latter.
    @Test func loadsThatCallTheUpstreamsAreCountedApart() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let metrics = ServiceMetrics(group: group)
        metrics.loadStarted()
        metrics.loadStarted()
        metrics.upstreamLoadStarted()
        let text = String(decoding: metrics.registry.render(), as: UTF8.self)
        #expect(text.contains("product_details_loads_total 2\n"))
        #expect(text.contains("product_details_upstream_loads_total 1\n"))
    }

    private static func freshExposition() throws -> [String] {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let metrics = ServiceMetrics(group: group)
        return String(decoding: metrics.registry.render(), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// The labels of a sample line whose values hold no escaped quote (routes, methods, codes).
    private static func labels(of line: String) -> [String: String] {
        guard let open = line.firstIndex(of: "{"), let close = line.lastIndex(of: "}") else { return [:] }
        var labels: [String: String] = [:]
        for pair in line[line.index(after: open)..<close].split(separator: "\",") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            labels[String(parts[0])] = String(parts[1].drop { $0 == "\"" }.prefix { $0 != "\"" })
        }
        return labels
    }

    private static func order(_ lhs: OpenAPIAnswers, _ rhs: OpenAPIAnswers) -> Bool {
        lhs.description < rhs.description
    }
}
