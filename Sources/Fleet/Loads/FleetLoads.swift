import ProductDetails
import Timekeeping

/// A fleet replica's load path: the shared cache first, then the upstreams under the fleet-wide
/// lease, the page stored for every replica. The rules of the shared phase are
/// ``SharedLookupMachine``'s; this does what it says, on the service's time line.
package struct FleetLoads: LoadPath {
    package let shared: SharedCache

    package init(_ shared: SharedCache) {
        self.shared = shared
    }

    package var stamp: UInt64? { shared.stamp }
    package var addsPhase: Bool { true }
    package var looksFirst: Bool { true }

    package func invalidate(_ scope: InvalidationScope) async -> InvalidationReach {
        InvalidationReach(await shared.invalidate(scope))
    }

    /// Outlined: its frame (the fleet's phases) is large.
    @inline(never)
    package func load(
        _ context: LoadContext, readsShared: Bool, answerEarly: AnswerEarly?, begun: (any BegunLoad)?, in service: ProductDetailsService
    ) async throws -> LoadedDocument {
        // Only this path begins loads, so a begun load handed back is its own.
        let begun = begun as? BegunSharedPhase
        func withStatus(_ status: SharedCacheStatus) -> AnswerEarly? {
            answerEarly?.preparing { loaded in
                var loaded = loaded
                loaded.shared = status
                return loaded
            }
        }
        /// A load for this replica alone, the shared cache's part told by `status`.
        func alone(_ status: SharedCacheStatus) async throws -> LoadedDocument {
            var loaded = try await service.loadFromUpstreams(context, answerEarly: withStatus(status))
            loaded.shared = status
            return loaded
        }
        guard context.stamp != nil else {
            // The fleet's invalidation log was not read since the last subscription: a message
            // may have been missed, so no shared page can be vouched for, nor one stored.
            return try await alone(SharedCacheStatus(result: .bypass, notStored: .unavailable))
        }
        guard readsShared else {
            // A client's no-cache asks for the origin's answer, not another replica's copy; the
            // answer is shared, under the lease like any load, so that no replica keeps serving
            // the copy it replaces. A lease another replica holds is not waited for.
            var status = SharedCacheStatus(result: .request)
            switch await shared.claimCurrent(id: context.id) {
            case .claimed(let claim):
                shared.events.lease(.won)
                return try await loadUnderLease(context, claim: claim, status: status, answerEarly: answerEarly, in: service)
            case .heldElsewhere:
                status.notStored = .leaseHeld
            case .unavailable:
                status.notStored = .unavailable
            }
            return try await alone(status)
        }
        switch try await sharedPhase(context, begun: begun, in: service) {
        case .answered(let loaded):
            return loaded
        case .load(nil, let status):
            return try await alone(status)
        case .load(let claim?, let status):
            return try await loadUnderLease(context, claim: claim, status: status, answerEarly: answerEarly, in: service)
        }
    }

    /// Loads from the upstreams while holding the product's lease (renewed meanwhile), then
    /// stores the page for the fleet, or gives the lease up when there is nothing to store.
    ///
    /// A page answered before a late optional part is stored at once and the lease kept (still
    /// renewed) until that part arrives: then the completed page is stored and the lease goes,
    /// so the fleet gets the complete page from this one load, as this replica does.
    func loadUnderLease(
        _ context: LoadContext, claim: SharedClaim, status: SharedCacheStatus, answerEarly: AnswerEarly? = nil, in service: ProductDetailsService
    ) async throws -> LoadedDocument {
        let shared = self.shared
        var status = status
        let renewal = keepRenewing(claim, on: service.time)
        // The page answered without a late part is shared at once; the lease stays for the
        // completed one, which `whenComplete` stores (releasing it), or gives the lease up.
        let early = answerEarly?.preparing { [status] loaded in
            var loaded = loaded
            var status = status
            if let page = loaded.page { status.stored = await shared.store(page, under: claim, keepingLease: true) }
            loaded.shared = status
            return loaded
        }
        let whenComplete: LateCompletion = { completed in
            if let page = completed?.page {
                _ = await shared.store(page, under: claim)
            } else {
                await shared.release(claim)
            }
        }
        var loaded: LoadedDocument
        do {
            loaded = try await service.loadFromUpstreams(context, answerEarly: early, whenComplete: whenComplete)
        } catch {
            renewal.cancel()
            // Not on this task, which may be cancelled: the lease must go so a waiter takes over now.
            Task { await shared.release(claim) }
            throw error
        }
        renewal.cancel()
        if !loaded.completesLater {
            if let page = loaded.page {
                status.stored = await shared.store(page, under: claim)
            } else {
                Task { await shared.release(claim) }
            }
        }
        loaded.shared = status
        return loaded
    }

    /// Renews `claim` every third of the lease while the load runs; cancel it when the load ends.
    /// Only a lease known lost ends the renewals: one that failed (a timeout, the breaker) leaves
    /// two thirds of the lease to try again in, and giving up would let it lapse under a load
    /// still running, and another replica load the product too.
    private func keepRenewing(_ claim: SharedClaim, on time: any TimeSource) -> Task<Void, Never> {
        let shared = self.shared
        return Task {
            let interval = shared.settings.leaseDuration / 3
            while !Task.isCancelled {
                do { try await time.sleep(for: interval) } catch { return }
                guard !Task.isCancelled, await shared.renew(claim) != false else { return }
            }
        }
    }
}

extension InvalidationReach {
    /// What the fleet's invalidation came to: the replicas told, or why none was.
    init(_ result: Result<Int, SharedStoreFailure>) {
        switch result {
        case .success(let receivers): self = .fleet(receivers: receivers)
        case .failure(let failure): self = .localOnly(failure)
        }
    }
}
