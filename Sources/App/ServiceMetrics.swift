import Logging
import EventLoop
import HTTPClient
import HTTPServer
import Metrics
import ProductDetails

/// Every counter operators watch, under one prefix, in base units, with no product id as a label.
/// The domain's events reach it through ``ServiceEventFanOut``, which says for each where it goes.
final class ServiceMetrics: Sendable {
    let registry = MetricsRegistry(prefix: "product_details_")
    private let requestSeries: LoopLocal<RequestSeriesCache>
    /// Every upstream × outcome, made at start: the attempt path reads it without a lock.
    private let upstreamSeries: SmallTable<UpstreamSeriesKey, UpstreamSeries>
    private let retries: SmallTable<UpstreamSeriesKey, Counter>
    private let cacheResults: SmallTable<CacheResult, Counter>
    private let coalescedRequests: Counter
    private let loadsStarted: Counter
    private let upstreamLoads: Counter
    private let loadCancellations: Counter
    private let loadRefusals: Counter
    private let evictions: SmallTable<String, Counter>
    private let budgetExhausted: SmallTable<Upstream, Counter>
    private let breakerTransitions: SmallTable<UpstreamStateKey, Counter>
    private let hedges: SmallTable<HedgeResult, Counter>
    private let omissions: SmallTable<OmissionKey, Counter>
    private let invalidations: SmallTable<String, Counter>
    private let invalidatedProducts: Counter
    private let dependentPagesDropped: Counter
    private let admissionWaits: Histogram
    private let admissionRefusals: SmallTable<AdmissionRefusal, Counter>
    private let retriesShed: SmallTable<Upstream, Counter>
    /// Answers by content coding and their bytes before and after compression.
    let compression: CompressionMetrics
    init(group: EventLoopGroup) {
        requestSeries = LoopLocal(group: group)
        let registry = self.registry
        compression = CompressionMetrics(registry: registry)
        // Label values known in advance exist at zero from the start (as the breaker, hedge and
        // omission series below): a burst before the first scrape still shows in `rate()`. Only
        // the registry holds the request series; a loop's cache still fills on first use.
        for operation in DocumentedAnswers.operations {
            for code in operation.codes {
                _ = RequestSeriesCache.counter(route: operation.route, method: operation.method, status: code, registry: registry)
            }
        }
        // Every attempt finds its series: the successes first, the common case.
        var upstreamSeries = Upstream.allCases.map { upstream in
            (UpstreamSeriesKey(upstream: upstream, outcome: "success"), Self.upstreamSeries(upstream, outcome: "success", registry: registry))
        }
        var retries: [(UpstreamSeriesKey, Counter)] = []
        for upstream in Upstream.allCases {
            for failure in UpstreamFailure.oneOfEachLabel {
                let key = UpstreamSeriesKey(upstream: upstream, outcome: failure.label)
                upstreamSeries.append((key, Self.upstreamSeries(upstream, outcome: failure.label, registry: registry)))
                if failure.isRetryable { retries.append((key, Self.retryCounter(upstream, reason: failure.label, registry: registry))) }
            }
        }
        self.upstreamSeries = SmallTable(upstreamSeries)
        self.retries = SmallTable(retries)
        cacheResults = SmallTable(CacheResult.allCases.map { result in
            (result, registry.counter("cache_requests_total", help: "Cache lookups by result.", labels: [("result", result.rawValue)]))
        })
        coalescedRequests = registry.counter("coalesced_requests_total", help: "Requests that joined a load another request started.")
        loadsStarted = registry.counter(
            "loads_total", help: "Product loads started (in fleet mode, those the shared cache answered too).")
        upstreamLoads = registry.counter(
            "upstream_loads_total", help: "Product loads that called the three upstreams (not answered by the shared cache).")
        loadCancellations = registry.counter("load_cancellations_total", help: "Loads cancelled because every waiting request went away.")
        loadRefusals = registry.counter("load_refusals_total", help: "Loads refused with 503 because MAX_INFLIGHT_LOADS were running.")
        evictions = SmallTable(["capacity", "bytes", "expired"].map { reason in
            (reason, registry.counter("cache_evictions_total", help: "Cache entries removed, by reason.", labels: [("reason", reason)]))
        })
        budgetExhausted = SmallTable(Upstream.allCases.map { upstream in
            (upstream, registry.counter(
                "retry_budget_exhausted_total", help: "Retries refused because the retry budget was spent.",
                labels: [("upstream", upstream.rawValue)]))
        })
        // Known in advance, so each series exists at zero from the start: a burst before the
        // first scrape still shows in `rate()`.
        var breakerTransitions: [(UpstreamStateKey, Counter)] = []
        for upstream in Upstream.allCases {
            for state in [CircuitBreaker.State.closed, .open, .halfOpen] {
                breakerTransitions.append((UpstreamStateKey(upstream: upstream, state: state.label), registry.counter(
                    "upstream_breaker_transitions_total", help: "Changes of each upstream's circuit breaker, by the state changed to.",
                    labels: [("upstream", upstream.rawValue), ("to", state.label)])))
            }
        }
        self.breakerTransitions = SmallTable(breakerTransitions)
        // Only the required products call is hedged.
        hedges = SmallTable(HedgeResult.allCases.map { result in
            (result, registry.counter(
                "upstream_hedges_total", help: "Hedged upstream attempts: sent, won (answered first), lost, refused (budget or breaker).",
                labels: [("upstream", Upstream.products.rawValue), ("result", result.rawValue)]))
        })
        var omissions: [(OmissionKey, Counter)] = []
        for part in DetailPart.allCases {
            for reason in OmissionReason.allCases {
                omissions.append((OmissionKey(part: part, reason: reason), registry.counter(
                    "parts_omitted_total", help: "Pages answered without an optional part, by part and reason (breaker, grace, failure).",
                    labels: [("part", part.rawValue), ("reason", reason.rawValue)])))
            }
        }
        self.omissions = SmallTable(omissions)
        invalidations = SmallTable(InvalidationScope.oneOfEachLabel.map { scope in
            (scope.label, registry.counter(
                "invalidations_total", help: "Invalidations this replica was asked for, by scope (product, bulk, all).",
                labels: [("scope", scope.label)]))
        })
        invalidatedProducts = registry.counter(
            "invalidated_products_total", help: "Product ids invalidated through this replica (one per id of a bulk invalidation).")
        admissionWaits = registry.histogram(
            "load_admission_wait_seconds", help: "Time loads waited for room at their upstreams (0 when room was free).",
            buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25])
        admissionRefusals = SmallTable(AdmissionRefusal.allCases.map { reason in
            (reason, registry.counter(
                "load_admission_refusals_total",
                help: "Loads refused room at their upstreams (503, or a stale page): queue_timeout, queue_full, deadline, background.",
                labels: [("reason", reason.rawValue)]))
        })
        retriesShed = SmallTable(Upstream.allCases.map { upstream in
            (upstream, registry.counter(
                "upstream_retries_shed_total", help: "Retries not sent because the upstream's concurrency limit was full.",
                labels: [("upstream", upstream.rawValue)]))
        })
        dependentPagesDropped = registry.counter(
            "dependent_pages_dropped_total",
            help: "Locally cached pages dropped, when next looked up, because a product they show was invalidated.")
    }

    /// Gauges read at scrape time from the parts that own the numbers.
    func observe(service: ProductDetailsService, server: HTTPServer, client: HTTPClient) {
        registry.gauge("inflight_requests", help: "Requests being handled now.") { Double(server.inFlightRequests) }
        registry.counter("overload_refusals_total", help: "Requests answered 503 because MAX_INFLIGHT_REQUESTS were running.") {
            server.overloadRefusals
        }
        registry.gauge("cache_entries", help: "Pages in the cache.") { Double(service.cacheEntryCount) }
        registry.gauge("cache_bytes", help: "Bytes of cached pages.") { Double(service.cacheBytes) }
        registry.gauge("inflight_loads", help: "Product loads running now.") { Double(service.inFlightCount) }
        for upstream in Upstream.allCases {
            let breaker = service.breaker(for: upstream)
            registry.gauge("upstream_breaker_state", help: "Each upstream's circuit breaker: 0 closed, 1 open, 2 half-open.",
                           labels: [("upstream", upstream.rawValue)]) { Double(breaker.state.gaugeValue) }
        }
        if let admission = service.admission {
            for upstream in Upstream.allCases {
                registry.gauge("upstream_concurrency_limit", help: "Each upstream's adaptive limit on calls in flight.",
                               labels: [("upstream", upstream.rawValue)]) { Double(admission.limit(of: upstream).limit) }
                registry.gauge("upstream_inflight_calls", help: "Each upstream's calls in flight now (attempts holding room).",
                               labels: [("upstream", upstream.rawValue)]) { Double(admission.limit(of: upstream).inFlight) }
            }
            registry.gauge("load_admission_queued", help: "Loads waiting for room at their upstreams now.") { Double(admission.queued) }
        }
        registry.gauge("open_connections", help: "Client connections open now.") { Double(server.openConnections) }
        registry.counter("upstream_connections_opened_total", help: "Upstream TCP connections opened.") {
            client.statistics.connectionsOpened
        }
        registry.gauge("upstream_open_connections", help: "Upstream TCP connections open or connecting now.") {
            Double(client.statistics.openConnections)
        }
    }

    /// Log lines the writer had to drop because the sink did not keep up.
    func observe(logWriter: LogWriter) {
        registry.counter("log_lines_dropped_total", help: "Log lines dropped because the log sink did not keep up, by kind of line.",
                         labels: [("line", "request")]) { logWriter.droppedLines.request }
        registry.counter("log_lines_dropped_total", help: "Log lines dropped because the log sink did not keep up, by kind of line.",
                         labels: [("line", "other")]) { logWriter.droppedLines.other }
    }

    /// Whether client connections are polled edge-triggered (the start-up check passed).
    func observe(edgeTriggeredPolling: Bool) {
        registry.gauge("edge_triggered_polling", help: "1 when client connections are polled edge-triggered, 0 when level-triggered.") {
            edgeTriggeredPolling ? 1 : 0
        }
    }

    // MARK: HTTP requests

    /// Counts one answered request and its duration; called on the connection's loop, or off it
    /// by a handler that outlived its stopped loop, which finds its series without the loop's cache.
    func request(on loop: EventLoop, route: String, method: String, status: Int, duration: Duration) {
        let cache = loop.inLoop ? requestSeries.value(on: loop) { RequestSeriesCache() } : RequestSeriesCache()
        cache.series(route: route, method: Self.methodLabel(method), status: status, registry: registry).record(duration)
    }

    /// The `method` label: a method RFC 9110 defines, else "other". Clients choose methods
    /// freely, and every label value is a series kept forever.
    static func methodLabel(_ method: String) -> String {
        switch method {
        case "GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE", "CONNECT": method
        default: "other"
        }
    }

    // MARK: Counted events (``ServiceEventFanOut`` calls these)

    /// Counts the attempt by outcome (`success` or the failure's label).
    func upstreamAttempt(_ upstream: Upstream, failure: UpstreamFailure?, duration: Duration) {
        let outcome = failure?.label ?? "success"
        let series = upstreamSeries[UpstreamSeriesKey(upstream: upstream, outcome: outcome)]
            ?? Self.upstreamSeries(upstream, outcome: outcome, registry: registry)
        series.requests.increment()
        series.duration.observe(duration)
    }

    func retry(_ upstream: Upstream, reason: String) {
        let counter = retries[UpstreamSeriesKey(upstream: upstream, outcome: reason)] ?? Self.retryCounter(upstream, reason: reason, registry: registry)
        counter.increment()
    }

    private static func upstreamSeries(_ upstream: Upstream, outcome: String, registry: MetricsRegistry) -> UpstreamSeries {
        UpstreamSeries(
            requests: registry.counter("upstream_requests_total", help: "Upstream attempts by upstream and outcome.",
                                       labels: [("upstream", upstream.rawValue), ("outcome", outcome)]),
            duration: registry.histogram("upstream_request_duration_seconds", help: "Duration of upstream attempts.",
                                         labels: [("upstream", upstream.rawValue)], buckets: DefaultBuckets.latencySeconds))
    }

    private static func retryCounter(_ upstream: Upstream, reason: String, registry: MetricsRegistry) -> Counter {
        registry.counter("upstream_retries_total", help: "Upstream retries by upstream and reason.",
                         labels: [("upstream", upstream.rawValue), ("reason", reason)])
    }

    func retryBudgetExhausted(_ upstream: Upstream) {
        budgetExhausted[upstream]?.increment()
    }

    func cacheLookup(_ result: CacheResult) {
        cacheResults[result]?.increment()
    }

    func coalesced() { coalescedRequests.increment() }
    func loadStarted() { loadsStarted.increment() }
    func upstreamLoadStarted() { upstreamLoads.increment() }
    func loadCancelled() { loadCancellations.increment() }
    func loadRefused() { loadRefusals.increment() }

    func upstreamBreaker(_ upstream: Upstream, _ state: CircuitBreaker.State) {
        breakerTransitions[UpstreamStateKey(upstream: upstream, state: state.label)]?.increment()
    }

    func hedge(_ upstream: Upstream, _ result: HedgeResult) {
        hedges[result]?.increment()
    }

    func partOmitted(_ part: DetailPart, _ reason: OmissionReason) {
        omissions[OmissionKey(part: part, reason: reason)]?.increment()
    }

    func invalidated(_ scope: InvalidationScope) {
        invalidations[scope.label]?.increment()
        invalidatedProducts.increment(by: scope.ids.count)
    }

    func dependentPageDropped() {
        dependentPagesDropped.increment()
    }

    func loadAdmitted(waited: Duration) { admissionWaits.observe(waited) }
    func loadShed(_ reason: AdmissionRefusal) { admissionRefusals[reason]?.increment() }
    func retryShed(_ upstream: Upstream) { retriesShed[upstream]?.increment() }

    /// Evictions happen on the insert path of a busy cache: the three series are looked up once,
    /// at start, not under the registry's lock per eviction.
    func eviction(reason: String) {
        if let counter = evictions[reason] {
            counter.increment()
        } else {
            registry.counter("cache_evictions_total", help: "Cache entries removed, by reason.", labels: [("reason", reason)]).increment()
        }
    }
}

private struct UpstreamStateKey: Equatable {
    let upstream: Upstream
    let state: String
}

private struct OmissionKey: Equatable {
    let part: DetailPart
    let reason: OmissionReason
}

private struct UpstreamSeries {
    let requests: Counter
    let duration: Histogram
}

/// The request counters and duration histogram of one loop's routes, so recording an answer costs
/// no lock once a series exists. Loop-confined.
private final class RequestSeriesCache {
    struct Series {
        let count: Counter
        let duration: Histogram

        func record(_ elapsed: Duration) {
            count.increment()
            duration.observe(elapsed)
        }
    }

    /// A few dozen at most (routes × known methods × statuses), found by a short scan that
    /// compares the status first.
    private var entries: [(route: String, method: String, status: Int, series: Series)] = []

    func series(route: String, method: String, status: Int, registry: MetricsRegistry) -> Series {
        for entry in entries where entry.status == status && entry.route == route && entry.method == method {
            return entry.series
        }
        let made = Series(
            count: Self.counter(route: route, method: method, status: status, registry: registry),
            duration: registry.histogram("http_request_duration_seconds", help: "Time from a complete request head to its answer.",
                                         labels: [("route", route), ("method", method)], buckets: DefaultBuckets.latencySeconds))
        entries.append((route, method, status, made))
        return made
    }

    static func counter(route: String, method: String, status: Int, registry: MetricsRegistry) -> Counter {
        registry.counter("http_requests_total", help: "Answered requests by route, method and status.",
                         labels: [("route", route), ("method", method), ("code", String(status))])
    }
}

/// An upstream attempt's (or retry's) series: a key made per attempt, so a struct (a joined
/// String cost an allocation each time).
private struct UpstreamSeriesKey: Equatable {
    let upstream: Upstream
    let outcome: String
}
