extension ProductDetailsService {
    /// Fetches the three parts at once, merges and encodes them, and stores the result.
    ///
    /// Throws ``ProductDetailsError`` when the product cannot be had, `CancellationError` when
    /// the load's task was cancelled (its last waiter left). A product 404 is an answer, not an
    /// error: it becomes a briefly cached 404 document. `begun`: the shared phase as the starting
    /// request began it (its look, its token and its deadline).
    func load(
        id: String, requestID: String, trace: TraceContext? = nil, observer: (any LoadObserver)? = nil, readsShared: Bool = true,
        executor: (any TaskExecutor)? = nil, early: InFlightLoads<String, LoadedDocument>.EarlyAnswer? = nil,
        begun: (any BegunLoad)? = nil, background: Bool = false
    ) async throws -> LoadedDocument {
        // One `REQUEST_DEADLINE_MS` for the whole load: waiting for another replica's load spends
        // it too, so a waiter that gives up does not start a second deadline of its own.
        let context = LoadContext(
            id: id, requestID: requestID, trace: trace, observer: observer, token: begun?.token ?? cache.loadToken(for: id),
            stamp: begun.map(\.stamp) ?? loads.stamp, deadline: begun?.deadline ?? time.now + settings.requestDeadline,
            executor: executor, background: background)
        let answerEarly = early.map { AnswerEarly($0, trace: trace) }
        // Called directly when the path adds nothing: one more async frame on the load's task
        // costs a heap allocation per load (Tests/Budgets, the miss).
        var loaded = loads.addsPhase
            ? try await loads.load(context, readsShared: readsShared, answerEarly: answerEarly, begun: begun, in: self)
            : try await loadFromUpstreams(context, answerEarly: answerEarly)
        loaded.trace = trace
        return loaded
    }

    /// The product call, with reviews and suggestions beside it (`async let`). Once the product
    /// is here, the optional parts get at most `optionalPartGrace` more; a part still out then is
    /// left out of a page given to the waiters at once (`answerEarly`), and the load goes on: the
    /// completed page is stored when the part arrives (``completeLate(_:with:_:_:)``, then
    /// `whenComplete`, in fleet mode to share it). Without `answerEarly` the load waits for them.
    package func loadFromUpstreams(
        _ context: LoadContext, answerEarly: AnswerEarly? = nil, whenComplete: LateCompletion? = nil
    ) async throws -> LoadedDocument {
        let room = try await admit(context)
        events.upstreamLoadStarted()
        let (reviews, suggestions) = (self.reviews, self.suggestions)
        let arriving = ArrivingParts()
        async let reviewsResult = arriving.arrived(
            reviews: fetch(.reviews, context, using: reviewRetrier, holdsRoom: room.contains(.reviews)) { call throws(UpstreamFailure) in
                try await reviews.reviews(productID: context.id, call: call)
            })
        async let suggestedResult = arriving.arrived(
            suggested: fetch(.suggestions, context, using: suggestionRetrier, holdsRoom: room.contains(.suggestions)) {
                call throws(UpstreamFailure) in
                try await suggestions.suggestions(productID: context.id, call: call)
            })
        let product: Product
        switch await fetch(.products, context, using: productRetrier, holdsRoom: room.contains(.products), { [products] call throws(UpstreamFailure) in
            try await products.product(id: context.id, call: call)
        }) {
        case .success(let value):
            product = value
        case .failure(.notFound):
            // Leaving the scope cancels the other two calls: nobody needs them now.
            let document = CachedDocument(status: 404, body: ProductDetailsError.notFound(id: context.id).problemJSON)
            return store(document, context, ttl: settings.notFoundTTL, staleWindows: false)
        case .failure(.cancelled):
            throw CancellationError()
        case .failure(.circuitOpen):
            throw ProductDetailsError.upstreamUnavailable(.products, retryAfter: productRetrier.breaker?.retryAfter ?? .zero)
        case .failure(.shed):
            throw ProductDetailsError.shed(.queueFull)
        case .failure(let failure):
            throw ProductDetailsError.upstream(failure, from: .products)
        }

        var answeredEarly: LoadedDocument?
        if let answerEarly, !arriving.bothArrived {
            let grace = settings.optionalPartGrace
            if grace > .zero {
                // Answers that came in with the product's are often only queued behind this task:
                // let them deliver before arming a timer.
                await Task.yield()
                await arriving.waitForBoth(orUntil: grace, on: time)
            }
            if !arriving.bothArrived, !Task.isCancelled {
                let (reviews, suggested) = arriving.parts
                if reviews == nil { admission?.noteLate(.reviews) }
                if suggested == nil { admission?.noteLate(.suggestions) }
                var degraded = page(context, product: product, reviews: reviews, suggested: suggested)
                degraded.withoutWaiting = .grace
                degraded.completesLater = true
                answeredEarly = degraded
                await answerEarly(degraded)
            }
        }
        let reviewsPart = await reviewsResult
        let suggestedPart = await suggestedResult
        if var degraded = answeredEarly {
            let completed = completeLate(context, with: product, reviewsPart, suggestedPart)
            await whenComplete?(completed)
            if var completed {
                completed.completesLater = true
                return completed
            }
            degraded.completesLater = true
            return degraded
        }
        // Matched, not compared: `Result`'s `==` is not specialized here and looks its metadata up.
        if case .failure(.cancelled) = reviewsPart { throw CancellationError() }
        if case .failure(.cancelled) = suggestedPart { throw CancellationError() }
        return page(context, product: product, reviews: reviewsPart, suggested: suggestedPart)
    }

    /// Merges, encodes and stores a page; a part that is `nil` (still on its way) or failed is
    /// listed in `missing`, and such a page is kept only for the degraded TTL.
    private func page(
        _ context: LoadContext, product: Product, reviews: Result<[Review], UpstreamFailure>?, suggested: Result<[Product], UpstreamFailure>?,
        counting: Bool = true
    ) -> LoadedDocument {
        var missing: [DetailPart] = []
        var withoutWaiting: OmissionReason?
        func take<T>(_ part: DetailPart, _ result: Result<[T], UpstreamFailure>?) -> [T] {
            let reason: OmissionReason
            switch result {
            case .success(let value)?: return value
            case nil: reason = .grace
            case .failure(.circuitOpen)?: reason = .breaker
            case .failure(.shed)?: reason = .shed
            case .failure?: reason = .failure
            }
            missing.append(part)
            // Not asked: the page did not wait for it.
            if reason == .breaker || reason == .shed { withoutWaiting = withoutWaiting ?? reason }
            if counting { events.partOmitted(part, reason) }
            return []
        }
        let detail = ProductDetail(
            product: product, reviews: take(.reviews, reviews), suggested: take(.suggested, suggested), missing: missing)
        let document = CachedDocument(
            status: 200, body: DetailEncoder.encode(detail), missing: missing, shownProducts: Self.shownProducts(in: detail, id: context.id))
        let ttl = missing.isEmpty ? settings.ttl : min(settings.degradedTTL, settings.ttl)
        var loaded = store(document, context, ttl: ttl, staleWindows: true)
        loaded.withoutWaiting = withoutWaiting
        return loaded
    }

    /// The page again once its late parts arrived, stored in place of the one answered without
    /// them (the load token still guards it: an invalidation since the load began refuses it).
    /// `nil` when no part succeeded, or the deadline passed: the answered page stays until its
    /// degraded TTL ends.
    private func completeLate(
        _ context: LoadContext, with product: Product, _ reviews: Result<[Review], UpstreamFailure>, _ suggested: Result<[Product], UpstreamFailure>
    ) -> LoadedDocument? {
        let anyArrived: Bool
        switch (reviews, suggested) {
        case (.success, _), (_, .success): anyArrived = true
        default: anyArrived = false
        }
        guard anyArrived, time.now < context.deadline else { return nil }
        let loaded = page(context, product: product, reviews: reviews, suggested: suggested, counting: false)
        return loaded.storedFor == nil ? nil : loaded
    }

    /// The page's own id, then each valid suggested id once: what the page depends on.
    static func shownProducts(in detail: ProductDetail, id: String) -> [String] {
        var shown = [id]
        for suggestion in detail.suggested where isValidID(suggestion.id) && !shown.contains(suggestion.id) {
            shown.append(suggestion.id)
        }
        return shown
    }

    /// Stores the page into L1 and the shared cache with its gzip variant, made here once.
    private func store(_ identity: CachedDocument, _ context: LoadContext, ttl: Duration, staleWindows: Bool) -> LoadedDocument {
        guard settings.ttl > .zero, ttl > .zero else { return LoadedDocument(document: identity, storedFor: nil) }
        let document = compressed(identity)
        let page = SharedPage(
            document: document, ttl: ttl,
            staleIfError: staleWindows ? settings.staleIfError : .zero,
            staleWhileRevalidate: staleWindows ? settings.staleWhileRevalidate : .zero,
            stamp: context.stamp ?? 0
        )
        let stored = cache.store(
            document, for: context.id, cost: document.cacheCost, ttl: ttl,
            staleIfError: page.staleIfError, staleWhileRevalidate: page.staleWhileRevalidate,
            dependencies: document.dependencies, token: context.token
        )
        // A load an invalidation overtook here is not shared either; the store would refuse it
        // anyway. Nor is one without a stamp: a single node's, or a fleet load before the log was read.
        let shareable = stored && context.stamp != nil
        return LoadedDocument(document: document, storedFor: stored ? ttl : nil, page: shareable ? page : nil)
    }

    /// Room at the upstreams for the load's calls (``LoadAdmission``): at every upstream whose
    /// breaker lets calls out, all at once, except an optional one whose part came after the grace
    /// lately (its call takes room only if free when it starts); none when the product's breaker
    /// is open, since that call then fails at once. Returns where room is held.
    ///
    /// Throws ``ProductDetailsError/shed(_:retryAfter:)`` when refused, `CancellationError` when
    /// the load's last waiter left while it waited.
    private func admit(_ context: LoadContext) async throws -> UpstreamSet {
        guard let admission else { return [] }
        var needs = UpstreamSet()
        for upstream in Upstream.allCases where breaker(for: upstream).state != .open {
            if upstream != .products, !admission.waitsForRoom(at: upstream) { continue }
            needs.insert(UpstreamSet(upstream))
        }
        guard needs.contains(.products) else { return [] }
        switch await admission.admit(needs, deadline: context.deadline, mayWait: !context.background) {
        case .admitted: return needs
        case .refused(let reason):
            context.observer?.loadShed()
            throw ProductDetailsError.shed(reason)
        case .cancelled: throw CancellationError()
        }
    }

    /// One upstream call through its retrier, its failure as a value.
    private func fetch<T: Sendable>(
        _ upstream: Upstream, _ context: LoadContext, using retrier: Retrier, holdsRoom: Bool,
        _ operation: nonisolated(nonsending) @escaping @Sendable (UpstreamCall) async throws(UpstreamFailure) -> T
    ) async -> Result<T, UpstreamFailure> {
        do throws(UpstreamFailure) {
            return .success(try await retrier.run(
                upstream, deadline: context.deadline, requestID: context.requestID, trace: context.trace, observer: context.observer,
                holdsRoom: holdsRoom, operation))
        } catch {
            return .failure(error)
        }
    }
}

extension ProductDetailsService {
    /// `document` with its gzip variant when it is worth one: at least `gzipMinBytes` of body,
    /// and gzip makes it smaller. Done once per page stored into L1, so a hit never compresses;
    /// with caching off nothing is stored, and nothing compressed.
    package func compressed(_ document: CachedDocument) -> CachedDocument {
        guard let compressor, settings.ttl > .zero, document.gzip == nil, document.body.count >= settings.gzipMinBytes,
              let member = compressor.gzip(document.body), member.count < document.body.count
        else { return document }
        return document.withGzip(member)
    }
}
