/// The result of one load, shared by every request that waited for it.
struct LoadedDocument: Sendable {
    let document: CachedDocument
    /// The TTL it was stored with; `nil` when it was not stored (caching off, or invalidated).
    let storedFor: Duration?
    /// The trace its upstream calls carried.
    var traceID: String?
    /// Set when the document is served stale (from the shared cache, while another replica
    /// refreshes it): how long it has been stale.
    var staleAge: Duration?
    /// The shared cache's part, in fleet mode.
    var shared: SharedCacheStatus?
    /// What to share with the fleet: the document with its windows, when it was cacheable.
    var page: SharedPage?

    init(document: CachedDocument, storedFor: Duration?, staleAge: Duration? = nil, shared: SharedCacheStatus? = nil, page: SharedPage? = nil) {
        self.document = document
        self.storedFor = storedFor
        self.staleAge = staleAge
        self.shared = shared
        self.page = page
    }
}

extension ProductDetailsService {
    /// Fetches the three parts at once, merges and encodes them, and stores the result.
    ///
    /// Throws ``ProductDetailsError`` when the product cannot be had, `CancellationError` when
    /// the load's task was cancelled (its last waiter left). A product 404 is an answer, not an
    /// error: it becomes a briefly cached 404 document.
    func load(id: String, requestID: String, trace: TraceContext? = nil, readsShared: Bool = true) async throws -> LoadedDocument {
        var loaded = try await loadUntraced(id: id, requestID: requestID, trace: trace, readsShared: readsShared)
        loaded.traceID = trace?.traceID
        return loaded
    }

    /// One `REQUEST_DEADLINE_MS` for the whole load: waiting for another replica's load spends
    /// it too, so a waiter that gives up does not start a second deadline of its own.
    private func loadUntraced(id: String, requestID: String, trace: TraceContext?, readsShared: Bool) async throws -> LoadedDocument {
        let token = cache.loadToken(for: id)
        let deadline = time.now + settings.requestDeadline
        guard let shared else {
            return try await loadFromUpstreams(id: id, requestID: requestID, trace: trace, token: token, deadline: deadline)
        }
        guard readsShared else {
            // A client's no-cache asks for the origin's answer, not another replica's copy.
            var loaded = try await loadFromUpstreams(id: id, requestID: requestID, trace: trace, token: token, deadline: deadline)
            loaded.shared = SharedCacheStatus(result: .request)
            return loaded
        }
        switch try await sharedPhase(id: id, requestID: requestID, trace: trace, token: token, shared: shared, deadline: deadline) {
        case .answered(let loaded):
            return loaded
        case .load(nil, let status):
            var loaded = try await loadFromUpstreams(id: id, requestID: requestID, trace: trace, token: token, deadline: deadline)
            loaded.shared = status
            return loaded
        case .load(let claim?, let status):
            return try await loadForTheFleet(
                id: id, requestID: requestID, trace: trace, token: token, claim: claim, shared: shared, status: status, deadline: deadline)
        }
    }

    /// Loads from the upstreams while holding the product's lease (renewed meanwhile), then
    /// stores the page for the fleet, or gives the lease up when there is nothing to store.
    func loadForTheFleet(
        id: String, requestID: String, trace: TraceContext?, token: LoadToken,
        claim: SharedClaim, shared: SharedCache, status: SharedCacheStatus, deadline: Duration
    ) async throws -> LoadedDocument {
        var status = status
        let renewal = keepRenewing(claim, in: shared)
        defer { renewal.cancel() }
        var loaded: LoadedDocument
        do {
            loaded = try await loadFromUpstreams(id: id, requestID: requestID, trace: trace, token: token, deadline: deadline)
        } catch {
            // Not on this task, which may be cancelled: the lease must go so a waiter takes over now.
            Task { await shared.release(claim) }
            throw error
        }
        renewal.cancel()
        if let page = loaded.page {
            status.stored = await shared.store(page, under: claim)
        } else {
            Task { await shared.release(claim) }
        }
        loaded.shared = status
        return loaded
    }

    /// `deadline` (absolute, on the service's time line) bounds the three calls, retries included.
    private func loadFromUpstreams(
        id: String, requestID: String, trace: TraceContext?, token: LoadToken, deadline: Duration
    ) async throws -> LoadedDocument {
        async let productResult = fetchProduct(id: id, deadline: deadline, requestID: requestID, trace: trace)
        async let reviewResult = fetchReviews(id: id, deadline: deadline, requestID: requestID, trace: trace)
        async let suggestionResult = fetchSuggestions(id: id, deadline: deadline, requestID: requestID, trace: trace)

        let product: Product
        switch await productResult {
        case .success(let value):
            product = value
        case .failure(.notFound):
            // Leaving the scope cancels the other two calls: nobody needs them now.
            let document = CachedDocument(status: 404, body: ProductDetailsError.notFound(id: id).problemJSON)
            return store(document, for: id, ttl: settings.notFoundTTL, staleWindows: false, token: token)
        case .failure(.cancelled):
            throw CancellationError()
        case .failure(let failure):
            throw ProductDetailsError.upstream(failure, from: .products)
        }

        var missing: [DetailPart] = []
        let reviews: [Review]
        switch await reviewResult {
        case .success(let value): reviews = value
        case .failure(.cancelled): throw CancellationError()
        case .failure: reviews = []; missing.append(.reviews)
        }
        let suggested: [Product]
        switch await suggestionResult {
        case .success(let value): suggested = value
        case .failure(.cancelled): throw CancellationError()
        case .failure: suggested = []; missing.append(.suggested)
        }

        let detail = ProductDetail(product: product, reviews: reviews, suggested: suggested, missing: missing)
        let document = CachedDocument(status: 200, body: DetailEncoder.encode(detail), missing: missing)
        let ttl = missing.isEmpty ? settings.ttl : min(settings.degradedTTL, settings.ttl)
        return store(document, for: id, ttl: ttl, staleWindows: true, token: token)
    }

    private func store(_ document: CachedDocument, for id: String, ttl: Duration, staleWindows: Bool, token: LoadToken) -> LoadedDocument {
        guard settings.ttl > .zero, ttl > .zero else { return LoadedDocument(document: document, storedFor: nil) }
        let page = SharedPage(
            document: document, ttl: ttl,
            staleIfError: staleWindows ? settings.staleIfError : .zero,
            staleWhileRevalidate: staleWindows ? settings.staleWhileRevalidate : .zero
        )
        let stored = cache.store(
            document, for: id, cost: document.cacheCost, ttl: ttl,
            staleIfError: page.staleIfError, staleWhileRevalidate: page.staleWhileRevalidate, token: token
        )
        // A load an invalidation overtook here is not shared either; the store would refuse it anyway.
        return LoadedDocument(document: document, storedFor: stored ? ttl : nil, page: stored ? page : nil)
    }

    private func fetchProduct(id: String, deadline: Duration, requestID: String, trace: TraceContext?) async -> Result<Product, UpstreamFailure> {
        do throws(UpstreamFailure) {
            return .success(try await productRetrier.run(.products, deadline: deadline, requestID: requestID, trace: trace) { call throws(UpstreamFailure) in
                try await products.product(id: id, call: call)
            })
        } catch {
            return .failure(error)
        }
    }

    private func fetchReviews(id: String, deadline: Duration, requestID: String, trace: TraceContext?) async -> Result<[Review], UpstreamFailure> {
        do throws(UpstreamFailure) {
            return .success(try await reviewRetrier.run(.reviews, deadline: deadline, requestID: requestID, trace: trace) { call throws(UpstreamFailure) in
                try await reviews.reviews(productID: id, call: call)
            })
        } catch {
            return .failure(error)
        }
    }

    private func fetchSuggestions(id: String, deadline: Duration, requestID: String, trace: TraceContext?) async -> Result<[Product], UpstreamFailure> {
        do throws(UpstreamFailure) {
            return .success(try await suggestionRetrier.run(.suggestions, deadline: deadline, requestID: requestID, trace: trace) { call throws(UpstreamFailure) in
                try await suggestions.suggestions(productID: id, call: call)
            })
        } catch {
            return .failure(error)
        }
    }
}
