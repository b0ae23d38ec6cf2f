/// What the shared-cache phase of a load decided.
enum SharedPhase: Sendable {
    /// The page came from the shared cache (fresh, or stale while another replica refreshes it).
    case answered(LoadedDocument)
    /// Load from the upstreams: for the fleet when `claim` is set, else for this replica alone.
    case load(claim: SharedClaim?, status: SharedCacheStatus)
}

extension ProductDetailsService {
    /// Looks in the shared cache before a load goes upstream, inside the in-flight load, so a
    /// replica asks once per product however many of its clients wait. The rules are
    /// ``SharedLookupMachine``'s; this does what it says, on the service's time line.
    func sharedPhase(_ context: LoadContext, shared: SharedCache) async throws -> SharedPhase {
        let id = context.id
        var machine = SharedLookupMachine(settings: shared.settings, deadline: context.deadline)
        var action = machine.start(now: time.now)
        while true {
            switch action {
            case .read(let deadline):
                if var read = await shared.read(id: id, deadline: deadline) {
                    let answered = time.now
                    if case .page(let page, let age, let generation) = read {
                        // A page stored with its variant keeps it; one stored without (by a
                        // replica that does not compress) is compressed here, once.
                        let local = SharedPage(
                            document: compressed(page.document), ttl: page.ttl, staleIfError: page.staleIfError,
                            staleWhileRevalidate: page.staleWhileRevalidate, stamp: page.stamp)
                        keepLocally(local, age: age, id: id, token: context.token)
                        read = .page(local, age: age, generation: generation)
                    }
                    action = machine.readAnswered(read, now: answered)
                } else {
                    action = machine.readFailed(now: time.now)
                }
            case .claim(let generation, let deadline):
                let claim = await shared.claim(id: id, generation: generation, deadline: deadline)
                action = machine.claimAnswered(claim, now: time.now)
            case .pause(let pause, let lease):
                if let lease { events.lease(lease) }
                try await time.sleep(for: pause)
                action = machine.pauseEnded(now: time.now)
            case .answerFresh(let document, let remaining, let status):
                return .answered(LoadedDocument(document: document, storedFor: remaining, shared: status))
            case .answerStale(let document, let staleness, let status, let refresh, let lease):
                if let lease { events.lease(lease) }
                if let refresh {
                    // As with a stale L1 page: refreshed without waiters, on a deadline of its own.
                    let context = LoadContext(
                        id: id, requestID: context.requestID, trace: context.trace, observer: context.observer, token: context.token,
                        stamp: context.stamp,
                        deadline: time.now + settings.requestDeadline, executor: context.executor)
                    Task(executorPreference: context.executor) {
                        _ = try? await self.loadUnderLease(context, claim: refresh, shared: shared, status: SharedCacheStatus(result: .stale))
                    }
                }
                return .answered(LoadedDocument(document: document, storedFor: nil, staleAge: staleness, shared: status))
            case .load(let claim, let status, let lease):
                if let lease { events.lease(lease) }
                return .load(claim: claim, status: status)
            case .giveUp(let lease):
                if let lease { events.lease(lease) }
                throw ProductDetailsError.sharedLoadTimedOut
            }
        }
    }

    /// Fills L1 with a page read from the shared cache, its windows counted from its first store.
    private func keepLocally(_ page: SharedPage, age: Duration, id: String, token: LoadToken) {
        guard settings.ttl > .zero else { return }
        cache.store(
            page.document, for: id, cost: page.document.cacheCost, ttl: page.ttl,
            staleIfError: page.staleIfError, staleWhileRevalidate: page.staleWhileRevalidate, age: age,
            dependencies: page.document.dependencies, token: token
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

