import Fleet
import Locking
import ProductDetails
import Timekeeping

/// The shared cache of a fleet in memory, with the rules the Redis scripts (`SharedCacheScripts`) keep:
/// one page and one lease per product, each belonging to the generation it was stored at (one of
/// another generation reads as absent), pages aged and leases lapsing on the injected time line
/// (a `ManualTimeSource` in tests), a store refused unless its claim still holds the lease at the
/// current generation, invalidations that replace a product's token (invalidating everything
/// only logs) and count their receivers. So the fleet's rules are tested with several services on one store,
/// no server and no clock.
package final class InMemorySharedPageStore: SharedPageStore {
    private struct Stored {
        let generation: SharedGeneration
        let page: SharedPage
        let at: Duration
    }

    private struct Lease {
        let generation: SharedGeneration
        let token: String
        var until: Duration
    }

    private struct State {
        var generations: [String: SharedGeneration] = [:]
        var pages: [String: Stored] = [:]
        var leases: [String: Lease] = [:]
        var tokens = 0
        var failure: SharedStoreFailure?
        var renewalFailures: [SharedStoreFailure] = []
        var renewals = 0
        var afterEachCall: (@Sendable () -> Void)?
        var calls = 0
        var receivers = 0
        var invalidated: [InvalidationScope] = []
        /// The fleet's invalidation log, as `SharedCacheScripts.publish` keeps it.
        var sequence: UInt64 = 1000
        var history: [SharedInvalidationHistory.Entry] = []

        mutating func token(_ kind: String) -> String {
            tokens += 1
            return "\(kind)\(tokens)"
        }

        mutating func generation(of id: String) -> SharedGeneration {
            let generation = generations[id] ?? SharedGeneration(token("g"))
            generations[id] = generation
            return generation
        }

        /// `id`'s lease at `generation` unless it lapsed by `now`.
        mutating func lease(of id: String, at generation: SharedGeneration, now: Duration) -> Lease? {
            guard let lease = leases[id] else { return nil }
            guard lease.until > now else {
                leases[id] = nil
                return nil
            }
            return lease.generation == generation ? lease : nil
        }

        /// Takes `id`'s lease at `generation` unless another holder has it there.
        mutating func claim(_ id: String, at generation: SharedGeneration, now: Duration, for duration: Duration) -> SharedClaim? {
            guard lease(of: id, at: generation, now: now) == nil else { return nil }
            let token = token("t")
            leases[id] = Lease(generation: generation, token: token, until: now + duration)
            return SharedClaim(id: id, generation: generation, token: token)
        }
    }

    private let time: any TimeSource
    private let leaseDuration: Duration
    private let state = Locked(State())
    /// Whether a peek may answer through a callback (the path a shared-cache hit takes on an event loop);
    /// without, callers await the async peek.
    private let answersWithoutTask: Bool

    package init(time: any TimeSource, leaseDuration: Duration = SharedCacheSettings().leaseDuration, answersWithoutTask: Bool = true) {
        self.time = time
        self.leaseDuration = leaseDuration
        self.answersWithoutTask = answersWithoutTask
    }

    /// Every later call fails so (Redis down, or not answering); `nil` heals it.
    package func fail(with failure: SharedStoreFailure?) {
        state.withLock { $0.failure = failure }
    }

    /// The next renewal fails so (a reply that came too late), then renewals work again.
    package func failNextRenewal(with failure: SharedStoreFailure) {
        state.withLock { $0.renewalFailures.append(failure) }
    }

    /// How many renewals were asked for, failed ones included.
    package var renewals: Int {
        state.withLock { $0.renewals }
    }

    /// Runs `hook` once each later call is answered, before its caller resumes: a test moves
    /// time there to make the store slow (the store itself answers at once, whatever the deadline).
    package func afterEachCall(_ hook: @escaping @Sendable () -> Void) {
        state.withLock { $0.afterEachCall = hook }
    }

    /// How many calls reached the store.
    package var calls: Int {
        state.withLock { $0.calls }
    }

    /// How many replicas an invalidation reaches (subscribers to the invalidation channel).
    package var receivers: Int {
        get { state.withLock { $0.receivers } }
        set { state.withLock { $0.receivers = newValue } }
    }

    /// The invalidations sent, in order.
    package var invalidations: [InvalidationScope] {
        state.withLock { $0.invalidated }
    }

    /// Whether a lease on `id` at its current tokens is held now.
    package func isLeased(_ id: String) -> Bool {
        let now = time.now
        return state.withLock { state in
            guard let generation = state.generations[id] else { return false }
            return state.lease(of: id, at: generation, now: now) != nil
        }
    }

    package func peek(id: String, deadline: Duration) async throws(SharedStoreFailure) -> SharedRead? {
        try peek(id: id)
    }

    /// Answers before it returns, unless the store was made without (`answersWithoutTask`).
    package func peek(
        id: String, deadline: Duration, completion: @escaping @Sendable (Result<SharedRead?, SharedStoreFailure>) -> Void
    ) -> (() -> Void)? {
        guard answersWithoutTask else { return nil }
        completion(Result { () throws(SharedStoreFailure) in try peek(id: id) })
        // Answered already: nothing is left to cancel.
        return {}
    }

    private func peek(id: String) throws(SharedStoreFailure) -> SharedRead? {
        let now = time.now
        return try answer { state in
            guard let generation = state.generations[id] else { return nil }
            if let stored = state.pages[id], stored.generation == generation, now - stored.at < stored.page.lifetime {
                return .page(stored.page, age: now - stored.at, generation: generation)
            }
            return state.lease(of: id, at: generation, now: now) == nil ? nil : .loadingElsewhere
        }
    }

    /// Atomic in memory: `peeked` changes nothing.
    package func read(id: String, deadline: Duration, peeked: Bool) async throws(SharedStoreFailure) -> SharedRead {
        let now = time.now
        let leaseDuration = self.leaseDuration
        return try answer { state in
            let generation = state.generation(of: id)
            if let stored = state.pages[id] {
                let age = now - stored.at
                if stored.generation == generation, age < stored.page.lifetime { return .page(stored.page, age: age, generation: generation) }
                state.pages[id] = nil
            }
            return state.claim(id, at: generation, now: now, for: leaseDuration).map(SharedRead.claimed) ?? .loadingElsewhere
        }
    }

    package func claim(id: String, generation: SharedGeneration, deadline: Duration) async throws(SharedStoreFailure) -> SharedClaim? {
        let now = time.now
        let leaseDuration = self.leaseDuration
        return try answer { state in
            guard state.generations[id] == generation else { return nil }
            return state.claim(id, at: generation, now: now, for: leaseDuration)
        }
    }

    package func claimCurrent(id: String, deadline: Duration) async throws(SharedStoreFailure) -> SharedClaim? {
        let now = time.now
        let leaseDuration = self.leaseDuration
        return try answer { state in
            state.claim(id, at: state.generation(of: id), now: now, for: leaseDuration)
        }
    }

    package func renew(_ claim: SharedClaim, deadline: Duration) async throws(SharedStoreFailure) -> Bool {
        let now = time.now
        let leaseDuration = self.leaseDuration
        let renewed: Result<Bool, SharedStoreFailure> = try answer { state in
            state.renewals += 1
            if !state.renewalFailures.isEmpty { return .failure(state.renewalFailures.removeFirst()) }
            guard state.lease(of: claim.id, at: claim.generation, now: now)?.token == claim.token else { return .success(false) }
            state.leases[claim.id]?.until = now + leaseDuration
            return .success(true)
        }
        return try renewed.get()
    }

    package func store(
        _ page: SharedPage, under claim: SharedClaim, keepingLease: Bool, deadline: Duration
    ) async throws(SharedStoreFailure) -> Bool {
        let now = time.now
        return try answer { state in
            guard state.generations[claim.id] == claim.generation,
                  state.lease(of: claim.id, at: claim.generation, now: now)?.token == claim.token
            else { return false }
            state.pages[claim.id] = Stored(generation: claim.generation, page: page, at: now)
            if !keepingLease { state.leases[claim.id] = nil }
            return true
        }
    }

    package func release(_ claim: SharedClaim, deadline: Duration) async throws(SharedStoreFailure) {
        let now = time.now
        try answer { state in
            if state.lease(of: claim.id, at: claim.generation, now: now)?.token == claim.token { state.leases[claim.id] = nil }
        }
    }

    package func invalidate(_ scope: InvalidationScope, deadline: Duration) async throws(SharedStoreFailure) -> SharedInvalidationReceipt {
        try answer { state in
            for id in scope.ids { state.generations[id] = SharedGeneration(state.token("g")) }
            state.invalidated.append(scope)
            state.sequence += 1
            let sequence = state.sequence
            switch scope {
            case .everything: state.history.append(.init(sequence: sequence, id: nil))
            default: state.history += scope.ids.map { .init(sequence: sequence, id: $0) }
            }
            return SharedInvalidationReceipt(sequence: sequence, receivers: state.receivers)
        }
    }

    package func invalidationHistory(deadline: Duration) async throws(SharedStoreFailure) -> SharedInvalidationHistory {
        try answer { state in
            SharedInvalidationHistory(knownFrom: state.history.first?.sequence ?? state.sequence, entries: state.history)
        }
    }

    /// The sequence of the last invalidation (as the broadcast would carry it).
    package var lastSequence: UInt64 {
        state.withLock { $0.sequence }
    }

    /// One call, as one atomic step (a script in Redis), or the failure set.
    private func answer<T: Sendable>(_ step: (inout State) -> T) throws(SharedStoreFailure) -> T {
        let (result, hook) = state.withLock { state -> (Result<T, SharedStoreFailure>, (@Sendable () -> Void)?) in
            state.calls += 1
            if let failure = state.failure { return (.failure(failure), state.afterEachCall) }
            return (.success(step(&state)), state.afterEachCall)
        }
        // Outside the lock: moving a manual clock resumes sleepers, which may call the store.
        hook?()
        return try result.get()
    }
}
