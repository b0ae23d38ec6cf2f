@testable import Logging
@testable import App
import EventLoop
import Foundation
import ProductDetails
import Testing
import Timekeeping

/// Each domain event reaches the metric it is documented to count, and those the fan-out says it
/// only logs reach the log and no metric. The compiler makes every sink implement every event;
/// this proves where each goes.
@Suite("Service event fan-out")
struct ServiceEventFanOutTests {
    struct Route: Sendable, CustomTestStringConvertible {
        let event: String
        /// The series (without the `product_details_` prefix) the event must change; nil: none.
        let metric: String?
        let fire: @Sendable (ServiceEventFanOut) -> Void

        var testDescription: String { event }
    }

    static let routes: [Route] = [
        Route(event: "upstreamAttempt", metric: "upstream_requests_total") {
            $0.upstreamAttempt(.reviews, failure: .timedOut, duration: .milliseconds(2))
        },
        Route(event: "retry", metric: "upstream_retries_total") { $0.retry(.reviews, reason: UpstreamFailure.timedOut.label) },
        Route(event: "retryBudgetExhausted", metric: "retry_budget_exhausted_total") { $0.retryBudgetExhausted(.reviews) },
        Route(event: "retryShed", metric: "upstream_retries_shed_total") { $0.retryShed(.products) },
        Route(event: "upstreamGaveUp", metric: nil) { $0.upstreamGaveUp(.reviews, failure: .timedOut, attempts: 3) },
        Route(event: "upstreamBreaker", metric: "upstream_breaker_transitions_total") { $0.upstreamBreaker(.reviews, .open) },
        Route(event: "hedge", metric: "upstream_hedges_total") { $0.hedge(.products, .sent) },
        Route(event: "cacheLookup", metric: "cache_requests_total") { $0.cacheLookup(.stale) },
        Route(event: "coalesced", metric: "coalesced_requests_total") { $0.coalesced() },
        Route(event: "loadStarted", metric: "loads_total") { $0.loadStarted() },
        Route(event: "loadFinished", metric: nil) { $0.loadFinished() },
        Route(event: "upstreamLoadStarted", metric: "upstream_loads_total") { $0.upstreamLoadStarted() },
        Route(event: "loadCancelled", metric: "load_cancellations_total") { $0.loadCancelled() },
        Route(event: "loadRefused", metric: "load_refusals_total") { $0.loadRefused() },
        Route(event: "eviction", metric: "cache_evictions_total") { $0.eviction(reason: "bytes") },
        Route(event: "partOmitted", metric: "parts_omitted_total") { $0.partOmitted(.reviews, .grace) },
        Route(event: "invalidated", metric: "invalidations_total") { $0.invalidated(.product("p1")) },
        Route(event: "dependentPageDropped", metric: "dependent_pages_dropped_total") { $0.dependentPageDropped() },
        Route(event: "loadAdmitted", metric: "load_admission_wait_seconds") { $0.loadAdmitted(waited: .milliseconds(3)) },
        Route(event: "loadShed", metric: "load_admission_refusals_total") { $0.loadShed(.queueFull) },
        Route(event: "shedding", metric: nil) { $0.shedding(true) },
    ]

    @Test(arguments: routes)
    func eachEventReachesItsMetric(_ route: Route) throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let metrics = ServiceMetrics(group: group)
        let lines = LogLines()
        let writer = LogWriter(capacity: 1 << 16, destination: lines.destination)
        let fanOut = ServiceEventFanOut(
            metrics: metrics, faultLog: UpstreamFaultLog(logger: Logger(minimum: .info, writer: writer), time: ManualTimeSource()),
            breakerOpened: { _ in })
        let before = Set(Self.samples(metrics))
        route.fire(fanOut)
        _ = writer.close(within: .seconds(5))
        let changed = Self.samples(metrics).filter { !before.contains($0) }
        if let metric = route.metric {
            #expect(changed.contains { $0.hasPrefix("product_details_\(metric)") }, "changed: \(changed)")
        } else {
            #expect(changed == [], "counted, though documented as not")
            #expect(!lines.objects.isEmpty || route.event == "loadFinished", "neither counted nor logged")
        }
    }

    /// Every requirement of the protocols `ServiceEvents` is made of, read from their sources, has
    /// a row above: an event added to the domain fails here until it says where it goes.
    @Test func everyEventHasARoute() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/ProductDetails")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
            .map { try String(contentsOf: sources.appendingPathComponent($0), encoding: .utf8) }
        let alias = try #require(files.lazy.compactMap { $0.firstMatch(of: /typealias ServiceEvents = ([\w &]+)/) }.first)
        let protocols = alias.1.split(separator: "&").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(protocols.count == 3, "\(protocols)")
        var events: [String] = []
        for name in protocols {
            let source = try #require(files.first { $0.contains("protocol \(name):") }, "protocol \(name) not found")
            let body = source[source.range(of: "protocol \(name):")!.upperBound...].prefix { $0 != "}" }
            events += body.matches(of: /func (\w+)\(/).map { String($0.1) }
        }
        #expect(events.count > 15, "read \(events.count) events: has the layout changed?")
        let routed = Set(Self.routes.map(\.event))
        #expect(Set(events).subtracting(routed).sorted() == [], "events with no row here")
        #expect(routed.subtracting(events).sorted() == [], "rows for events that are gone")
        #expect(Set(Self.routes.map(\.event)).count == Self.routes.count)
    }

    private static func samples(_ metrics: ServiceMetrics) -> [String] {
        String(decoding: metrics.registry.render(), as: UTF8.self).split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
    }
}
