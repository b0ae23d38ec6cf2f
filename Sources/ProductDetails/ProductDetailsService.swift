import Timekeeping

/// The domain core: answers product detail pages from a bounded cache that one load per product
/// fills, however many requests ask at the same moment.
///
/// The request path (see docs/architecture.md, "The life of a page"):
/// 1. Validate the id (400 before touching the cache or an upstream).
/// 2. One synchronous cache lookup: fresh → hit; stale within stale-while-revalidate → served
///    stale while one background refresh runs through the in-flight table.
/// 3. Otherwise join or start the one load for the id in ``InFlightLoads``. A load fetches product,
///    reviews and suggestions at once through the ``Retrier`` within one deadline, merges and
///    encodes them once, and stores the bytes with the load token taken before it began, so a
///    load that an invalidation overtook answers its waiters but is never stored.
/// 4. If the load fails and a stale document may stand in (stale-if-error), serve that instead.
package final class ProductDetailsService: Sendable {
    package let settings: ServiceSettings
    let products: any ProductSource
    let reviews: any ReviewSource
    let suggestions: any SuggestionSource
    package let time: any TimeSource
    package let events: any ServiceEvents
    let cache: ResponseCache<String, CachedDocument>
    let inFlight: InFlightLoads<String, LoadedDocument>
    let productRetrier: Retrier
    let reviewRetrier: Retrier
    let suggestionRetrier: Retrier
    /// Room at the upstreams for each load (``LoadAdmission``); `nil` when `settings.admission` is.
    package let admission: LoadAdmission?
    /// Where a page the local cache could not answer comes from (``LoadPath``).
    let loads: any LoadPath
    /// Gives pages their gzip variant as they are stored into L1; `nil`: identity only.
    let compressor: (any PageCompressor)?

    /// - Parameters:
    ///   - cache: a cache to share or inspect; built from `settings` when `nil`.
    ///   - loads: the load path: this node's upstreams (``LocalLoads``), or the fleet's first.
    ///   - load: this process's own load, which hedging heeds (``LocalLoad``).
    ///   - random: the jitter source for retry backoff (inject a fixed one in tests).
    package init(
        products: any ProductSource,
        reviews: any ReviewSource,
        suggestions: any SuggestionSource,
        settings: ServiceSettings = ServiceSettings(),
        time: any TimeSource = ClockTimeSource(),
        events: any ServiceEvents = NoEvents(),
        cache: ResponseCache<String, CachedDocument>? = nil,
        loads: any LoadPath = LocalLoads(),
        compressor: (any PageCompressor)? = nil,
        load: (any LocalLoad)? = nil,
        random: @escaping @Sendable (ClosedRange<Double>) -> Double = { Double.random(in: $0) }
    ) {
        self.loads = loads
        self.compressor = compressor
        self.settings = settings
        self.products = products
        self.reviews = reviews
        self.suggestions = suggestions
        self.time = time
        self.events = events
        self.cache = cache ?? ResponseCache(
            maxEntries: settings.cacheMaxEntries, maxBytes: settings.cacheMaxBytes, time: time, events: events
        )
        self.inFlight = InFlightLoads(maxLoads: settings.maxInFlightLoads, events: events)
        let admission = settings.admission.map { LoadAdmission(policy: $0, time: time, events: events, load: load) }
        self.admission = admission
        func retrier(_ upstream: Upstream, hedging: HedgePolicy? = nil) -> Retrier {
            Retrier(
                policy: settings.retry, budget: RetryBudget(limits: settings.retryBudget, time: time),
                breaker: UpstreamBreaker(upstream: upstream, policy: settings.upstreamBreaker, time: time, events: events),
                hedger: hedging.map { Hedger(policy: $0, time: time, load: load) },
                admission: admission,
                time: time, random: random, events: events
            )
        }
        // Only the required call is hedged: an optional part that is slow is left out instead.
        self.productRetrier = retrier(.products, hedging: settings.hedging)
        self.reviewRetrier = retrier(.reviews)
        self.suggestionRetrier = retrier(.suggestions)
    }

    /// Whether `id` is `[A-Za-z0-9_-]{1,64}`.
    package static func isValidID(_ id: String) -> Bool {
        // Over the string's bytes in place: walking a `UTF8View` decodes each element anew.
        id.utf8.withContiguousStorageIfAvailable(isValidID(bytes:)) ?? Array(id.utf8).withUnsafeBufferPointer(isValidID(bytes:))
    }

    /// ``isValidID(_:)`` of an id's UTF-8 bytes, before a string is made of them.
    package static func isValidID(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard (1...64).contains(bytes.count) else { return false }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                continue
            default:
                return false
            }
        }
        return true
    }

    /// The detail document for `id`: a 200 detail or a cached 404 problem document. One cache
    /// look-up (``lookUpDetail(id:noCache:)``), then, unless it was fresh,
    /// ``detail(after:requestID:trace:observer:executor:)``.
    ///
    /// - Parameters:
    ///   - noCache: skip the cache lookup (a client's `Cache-Control: no-cache`), but still join a
    ///     load already in flight: it started no earlier than this request, so it is fresh enough.
    ///   - observer: told of the upstream work of a load this request starts (a refresh it
    ///     starts too); not of a load it joins.
    ///   - executor: where a load this request starts runs (the caller's event loop).
    /// - Throws: 400, 502, 503, 504 as ``ProductDetailsError``; ``ProductDetailsError/cancelled``
    ///   when this request's task is cancelled.
    package func detail(
        id: String,
        noCache: Bool = false,
        requestID: String = "",
        trace: TraceContext? = nil,
        observer: (any LoadObserver)? = nil,
        executor: (any TaskExecutor)? = nil
    ) async throws(ProductDetailsError) -> DetailAnswer {
        switch lookUpDetail(id: id, noCache: noCache) {
        case .answered(let answer):
            return answer
        case .pending(let pending):
            return try await detail(after: pending, requestID: requestID, trace: trace, observer: observer, executor: executor)
        }
    }

    /// The one cache look-up of a detail request, synchronous: a fresh answer at once, or what
    /// ``detail(after:requestID:trace:observer:executor:)`` needs to finish without a second look-up.
    /// An invalid id is not looked up (the pending detail throws `invalidID`).
    package func lookUpDetail(id: String, noCache: Bool = false) -> DetailLookup {
        guard Self.isValidID(id), !noCache else { return .pending(PendingDetail(id: id, cached: nil, noCache: noCache)) }
        let cached = cache.lookup(id)
        if case .fresh(let document, let remaining) = cached { return .answered(hit(document, remaining: remaining)) }
        return .pending(PendingDetail(id: id, cached: cached))
    }

    /// Finishes a detail request whose look-up found nothing fresh: serves a document stale
    /// within stale-while-revalidate (starting its one refresh), or joins or starts the load.
    /// - Throws: as ``detail(id:noCache:requestID:trace:observer:executor:)``.
    package func detail(
        after pending: PendingDetail,
        requestID: String = "",
        trace: TraceContext? = nil,
        observer: (any LoadObserver)? = nil,
        executor: (any TaskExecutor)? = nil
    ) async throws(ProductDetailsError) -> DetailAnswer {
        let id = pending.id
        guard Self.isValidID(id) else { throw .invalidID }
        if case .stale(let document, let age, revalidate: true, _)? = pending.cached {
            // Told now, not when the refresh's task runs: the request's answer goes first.
            if await refreshInBackground(id: id, requestID: requestID, trace: trace, observer: observer, executor: executor) {
                observer?.loadStarted()
            }
            events.cacheLookup(.stale)
            return DetailAnswer(
                document: document,
                cache: CacheOutcome(result: .stale, ttlRemaining: .zero - age, servedStaleBecause: "revalidating")
            )
        }
        return try await loadAnswer(
            id: id, requestID: requestID, trace: trace, observer: observer, executor: executor, readsShared: !pending.noCache,
            begun: pending.begun)
    }

    /// Whether a request that will load may first look without a task (``firstLook(_:completion:)``):
    /// in fleet mode, at the shared cache.
    package var looksFirst: Bool { loads.looksFirst }

    /// The first step of ``detail(after:requestID:trace:observer:executor:)`` for a request that
    /// will load, taken on the caller's event loop with no task: in fleet mode its look at the
    /// shared cache. `completion` runs on that loop with `.answered` for a shared-cache hit, else
    /// `.pending` with the look, for `detail(after:…)` to go on from in a task. Returns what
    /// cancels the look (a client that left; `completion` then runs at once, with `.pending`), or
    /// `nil` when there is no such look (a single node, a stale page to serve, a `no-cache`
    /// request, a load to join, a store that cannot from this thread): `completion` never runs,
    /// and `detail(after:…)` does it all.
    package func firstLook(_ pending: PendingDetail, completion: @escaping @Sendable (DetailLookup) -> Void) -> (() -> Void)? {
        guard Self.isValidID(pending.id) else { return nil }
        return loads.firstLook(pending, in: self, completion: completion)
    }

    private func hit(_ document: CachedDocument, remaining: Duration) -> DetailAnswer {
        events.cacheLookup(.hit)
        return DetailAnswer(document: document, cache: CacheOutcome(result: .hit, ttlRemaining: remaining))
    }

    /// Forgets what `scope` reaches: the cached documents go (a product's own page, and every
    /// page that shows it), a load already running may still answer the requests waiting for it
    /// but is never stored, and requests arriving from now on never join it. In fleet mode every
    /// replica is told to do the same.
    @discardableResult
    package func invalidate(_ scope: InvalidationScope) async -> InvalidationReach {
        events.invalidated(scope)
        dropCachedCopies(scope)
        await stopJoiningLoads(scope)
        return await loads.invalidate(scope)
    }

    /// Caps how long a locally cached page counts as fresh (`nil` lifts it): in fleet mode, while
    /// invalidations sent by other replicas may be missed.
    package func capLocalFreshness(to cap: Duration?) {
        cache.capFreshness(to: cap)
    }

    /// The synchronous half of an invalidation on this replica: the cached copies go and loads
    /// that began before may no longer store, at once, on the caller's thread. A page showing an
    /// invalidated product goes when next looked up, so this costs the same however many pages
    /// show it. An invalidation another replica sent is handled on an event loop, where waiting
    /// for an actor would delay it: it calls this at once, then ``stopJoiningLoads(_:)``.
    package func dropCachedCopies(_ scope: InvalidationScope) {
        switch scope {
        case .product(let id): cache.invalidate(id)
        case .products(let ids): cache.invalidate(ids)
        case .everything: cache.invalidateAll()
        }
    }

    /// The other half: requests from now on do not join a load already running in `scope`. Any
    /// running load may show an invalidated product among its suggestions, which are known only
    /// once they arrive, so a product's invalidation detaches them all: the few loads running at
    /// that moment cost one more load each for the requests that come next.
    package func stopJoiningLoads(_ scope: InvalidationScope) async {
        await inFlight.detachAll()
    }

    /// The circuit breaker of `upstream`'s calls.
    package func breaker(for upstream: Upstream) -> UpstreamBreaker {
        let retrier = switch upstream {
        case .products: productRetrier
        case .reviews: reviewRetrier
        case .suggestions: suggestionRetrier
        }
        // Every retrier of the service is built with one.
        return retrier.breaker!
    }

    package var cacheEntryCount: Int { cache.count }
    package var cacheBytes: Int { cache.totalBytes }
    /// Loads running now (no actor hop: read from an atomic).
    package var inFlightCount: Int { inFlight.count }

    /// - Parameter readsShared: `false` for a client's `no-cache`: a load this request starts goes
    ///   to the upstreams without reading the shared cache (joining a running load stays allowed).
    private func loadAnswer(
        id: String, requestID: String, trace: TraceContext?, observer: (any LoadObserver)?, executor: (any TaskExecutor)?,
        readsShared: Bool = true, begun: (any BegunLoad)? = nil
    ) async throws(ProductDetailsError) -> DetailAnswer {
        var begun = begun
        if begun == nil, readsShared, loads.looksFirst {
            begun = await loads.begin(id: id, in: self)
        }
        if let answer = begun?.freshAnswer(counting: events) { return answer }
        let failure: ProductDetailsError
        do {
            // Only the load this request starts runs this closure: a request that joins one
            // hears nothing of its work.
            let (loaded, collapsed) = try await inFlight.value(for: id, executor: executor) { [self, begun] (early: InFlightLoads<String, LoadedDocument>.EarlyAnswer) in
                observer?.loadStarted()
                return try await self.load(
                    id: id, requestID: requestID, trace: trace, observer: observer, readsShared: readsShared, executor: executor, early: early,
                    begun: begun)
            }
            let traceID = collapsed ? loaded.trace?.traceID : nil
            if let staleAge = loaded.staleAge {
                events.cacheLookup(.stale)
                let outcome = CacheOutcome(
                    result: .stale, collapsed: collapsed, ttlRemaining: .zero - staleAge,
                    servedStaleBecause: "revalidating", shared: loaded.shared
                )
                return DetailAnswer(document: loaded.document, cache: outcome, loadTraceID: traceID)
            }
            events.cacheLookup(.miss)
            let outcome = CacheOutcome(
                result: .miss, collapsed: collapsed, ttlRemaining: loaded.storedFor, shared: loaded.shared,
                withoutWaiting: loaded.withoutWaiting)
            return DetailAnswer(document: loaded.document, cache: outcome, loadTraceID: traceID)
        } catch let error as ProductDetailsError {
            failure = error
        } catch is InFlightLoadsOverloaded {
            events.loadRefused()
            failure = .overloaded()
        } catch is CancellationError {
            failure = .cancelled
        } catch {
            failure = .badGateway("The product could not be loaded.")
        }
        if failure.isCancellation || Task.isCancelled { throw .cancelled }
        let reason = failure.isBreakerRefusal ? "breaker-open" : failure.isShed ? "shed" : "error"
        if let standIn = staleStandIn(for: id, because: reason) {
            events.cacheLookup(standIn.cache.result)
            return standIn
        }
        events.cacheLookup(.miss)
        throw failure
    }

    /// A cached document that may be served instead of a failed load (stale-if-error).
    private func staleStandIn(for id: String, because reason: String) -> DetailAnswer? {
        switch cache.lookup(id) {
        case .stale(let document, let age, _, usableOnError: true):
            return DetailAnswer(
                document: document,
                cache: CacheOutcome(result: .stale, ttlRemaining: .zero - age, servedStaleBecause: reason)
            )
        case .fresh(let document, let remaining):
            // Another load stored a fresh document while this one failed.
            return DetailAnswer(document: document, cache: CacheOutcome(result: .hit, ttlRemaining: remaining))
        case .stale, .miss:
            return nil
        }
    }

    /// Starts the one stale-while-revalidate refresh for `id` unless a load is already running;
    /// returns whether it did.
    private func refreshInBackground(
        id: String, requestID: String, trace: TraceContext?, observer: (any LoadObserver)?, executor: (any TaskExecutor)?
    ) async -> Bool {
        await inFlight.startBackgroundLoad(for: id, executor: executor) { [self] (early: InFlightLoads<String, LoadedDocument>.EarlyAnswer) in
            try await self.load(
                id: id, requestID: requestID, trace: trace, observer: observer, executor: executor, early: early, background: true)
        }
    }
}
