/// What the shared-cache phase of a load decided.
enum SharedPhase: Sendable {
    /// The page came from the shared cache (fresh, or stale while another replica refreshes it).
    case answered(LoadedDocument)
    /// Load from the upstreams: for the fleet when `claim` is set, else for this replica alone.
    case load(claim: SharedClaim?, status: SharedCacheStatus)
}

extension ProductDetailsService {
    /// Looks in the shared cache before a load goes upstream, inside the in-flight load, so a
    /// replica asks once per product however many of its clients wait.
    ///
    /// The page is there: it fills L1 and answers. It is not: whoever takes the lease loads, the
    /// others look again with growing pauses until the page appears or the lease lapses (then one
    /// of them takes it over). Every command draws on one Redis budget for the whole miss
    /// (``SharedTimeBudget``); the wait itself is bounded by the load's `deadline`: a wait that
    /// reaches it fails the load (`504`, or stale-if-error) rather than going upstream on a
    /// deadline of its own, which would double the request's time. A failure, the breaker, or a
    /// spent budget sends the load upstream at once, as on a single node.
    func sharedPhase(_ context: LoadContext, shared: SharedCache) async throws -> SharedPhase {
        let id = context.id
        var budget = SharedTimeBudget(shared.settings.timeout)
        var waited = false
        var pause = shared.settings.pollInitial
        while true {
            let asked = time.now
            guard let deadline = budget.deadline(now: asked), let read = await shared.read(id: id, deadline: deadline) else {
                return .load(claim: nil, status: SharedCacheStatus(result: .bypass, collapsed: waited))
            }
            budget.charge(from: asked, to: time.now)
            switch read {
            case .claimed(let claim):
                events.lease(waited ? .takenOver : .won)
                return .load(claim: claim, status: SharedCacheStatus(result: .miss, collapsed: waited))
            case .page(let page, let age, let generation):
                keepLocally(page, age: age, id: id, token: context.token)
                switch page.standing(age: age) {
                case .fresh(let document, let remaining):
                    let status = SharedCacheStatus(result: .hit, ttlRemaining: remaining, collapsed: waited)
                    return .answered(LoadedDocument(document: document, storedFor: remaining, shared: status))
                case .stale(let document, let staleness, let revalidate, _):
                    var claim: SharedClaim?
                    let claimed = time.now
                    if let deadline = budget.deadline(now: claimed) {
                        claim = await shared.claim(id: id, generation: generation, deadline: deadline)
                        budget.charge(from: claimed, to: time.now)
                    }
                    if claim != nil { events.lease(waited ? .takenOver : .won) }
                    let refreshing = SharedCacheStatus(result: .miss, ttlRemaining: .zero - staleness, collapsed: waited)
                    if revalidate {
                        if let claim {
                            // As with a stale L1 page: served now, refreshed without waiters, on
                            // a deadline of its own.
                            let refresh = LoadContext(
                                id: id, requestID: context.requestID, trace: context.trace, token: context.token,
                                deadline: time.now + settings.requestDeadline, executor: context.executor)
                            Task(executorPreference: context.executor) {
                                _ = try? await self.loadForTheFleet(refresh, claim: claim, shared: shared, status: refreshing)
                            }
                        }
                        let status = SharedCacheStatus(result: .stale, ttlRemaining: .zero - staleness, collapsed: waited)
                        return .answered(LoadedDocument(document: document, storedFor: nil, staleAge: staleness, shared: status))
                    }
                    if let claim {
                        return .load(claim: claim, status: refreshing)
                    }
                case .miss:
                    break
                }
            case .loadingElsewhere:
                break
            }
            if !waited {
                waited = true
                events.lease(.waited)
            }
            guard time.now + pause < context.deadline else { throw ProductDetailsError.fleetLoadTimedOut }
            try await time.sleep(for: pause)
            pause = min(pause * 2, shared.settings.pollMax)
        }
    }

    /// Fills L1 with a page read from the shared cache, its windows counted from its first store.
    private func keepLocally(_ page: SharedPage, age: Duration, id: String, token: LoadToken) {
        guard settings.ttl > .zero else { return }
        cache.store(
            page.document, for: id, cost: page.document.cacheCost, ttl: page.ttl,
            staleIfError: page.staleIfError, staleWhileRevalidate: page.staleWhileRevalidate, age: age, token: token
        )
    }

    /// Renews `claim` every third of the lease while the load runs; cancel it when the load ends.
    /// Only a lease known lost ends the renewals: one that failed (a timeout, the breaker) leaves
    /// two thirds of the lease to try again in, and giving up would let it lapse under a load
    /// still running, and another replica load the product too.
    func keepRenewing(_ claim: SharedClaim, in shared: SharedCache) -> Task<Void, Never> {
        let time = self.time
        return Task {
            let interval = shared.settings.leaseDuration / 3
            while !Task.isCancelled {
                do { try await time.sleep(for: interval) } catch { return }
                guard !Task.isCancelled, await shared.renew(claim) != false else { return }
            }
        }
    }
}

