/// The knobs of ``ProductDetailsService``, each with the default the design calls sane.
package struct ServiceSettings: Sendable, Equatable {
    /// How long a complete document stays fresh; `.zero` disables caching (loads still coalesce).
    package var ttl: Duration
    /// How long a product 404 is remembered: short, so a product created later shows up soon.
    package var notFoundTTL: Duration
    /// How long past its TTL a document may stand in for a failed load.
    package var staleIfError: Duration
    /// How long past its TTL a document may be served while one background refresh runs.
    package var staleWhileRevalidate: Duration
    /// TTL of a degraded document (one with `missing` parts), so the full page returns soon.
    package var degradedTTL: Duration
    package var retry: RetryPolicy
    /// The retry budget of each upstream (each has its own, so one outage does not starve the others).
    package var retryBudget: RetryBudgetWindow.Limits
    /// The overall time a load may take, across all attempts of all three upstream calls.
    package var requestDeadline: Duration
    /// How many loads of one batch run at once.
    package var batchParallelism: Int
    /// The most ids one batch may ask for.
    package var maxBatch: Int
    /// The most loads running at once; beyond it new loads answer 503 (joining is still allowed).
    package var maxInFlightLoads: Int
    package var cacheMaxEntries: Int
    package var cacheMaxBytes: Int
    /// Each upstream's circuit breaker (docs/architecture.md, "Gray failure").
    package var upstreamBreaker: CircuitBreaker.Policy
    /// Once the product has arrived, how much longer a load waits for reviews and suggestions
    /// before it answers without them (and completes the cached page when they come).
    package var optionalPartGrace: Duration
    /// Hedging of the product call; `nil` turns it off.
    package var hedging: HedgePolicy?
    /// The adaptive limits on each upstream's calls in flight and the queue of loads before them
    /// (``LoadAdmission``); `nil` lets every load through at once.
    package var admission: AdmissionMachine.Policy?
    /// The smallest body given a gzip variant when stored: below it, gzip's 18 bytes of framing
    /// and a round trip's worth of packets leave little to save for the CPU it costs.
    package var gzipMinBytes: Int

    package init(
        ttl: Duration = .seconds(60),
        notFoundTTL: Duration = .seconds(5),
        staleIfError: Duration = .seconds(300),
        staleWhileRevalidate: Duration = .seconds(30),
        degradedTTL: Duration = .seconds(5),
        retry: RetryPolicy = RetryPolicy(),
        retryBudget: RetryBudgetWindow.Limits = .init(),
        requestDeadline: Duration = .seconds(3),
        batchParallelism: Int = 8,
        maxBatch: Int = 100,
        maxInFlightLoads: Int = 10_000,
        cacheMaxEntries: Int = 10_000,
        cacheMaxBytes: Int = 64 * 1024 * 1024,
        upstreamBreaker: CircuitBreaker.Policy = Self.defaultUpstreamBreaker,
        optionalPartGrace: Duration = .milliseconds(100),
        hedging: HedgePolicy? = HedgePolicy(),
        admission: AdmissionMachine.Policy? = AdmissionMachine.Policy(),
        gzipMinBytes: Int = 512
    ) {
        self.ttl = ttl
        self.notFoundTTL = notFoundTTL
        self.staleIfError = staleIfError
        self.staleWhileRevalidate = staleWhileRevalidate
        self.degradedTTL = degradedTTL
        self.retry = retry
        self.retryBudget = retryBudget
        self.requestDeadline = requestDeadline
        self.batchParallelism = batchParallelism
        self.maxBatch = maxBatch
        self.maxInFlightLoads = maxInFlightLoads
        self.cacheMaxEntries = cacheMaxEntries
        self.cacheMaxBytes = cacheMaxBytes
        self.upstreamBreaker = upstreamBreaker
        self.optionalPartGrace = optionalPartGrace
        self.hedging = hedging
        self.admission = admission
        self.gzipMinBytes = gzipMinBytes
    }

    /// Five failures in a row (Envoy's outlier detection), or half of at least 20 calls in 10 s
    /// (Hystrix's ratio rule, which catches an upstream failing every other call); open 5 s
    /// (Hystrix's and Polly's), so a healed upstream is back within seconds.
    package static let defaultUpstreamBreaker = CircuitBreaker.Policy(
        failureThreshold: 5, openFor: .seconds(5), failureRatio: 0.5, window: .seconds(10), minimumCalls: 20)
}
