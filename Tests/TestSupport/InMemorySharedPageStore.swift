import Locking
import ProductDetails
import Timekeeping

/// The shared cache of a fleet in memory, with the rules the Redis scripts (`SharedCacheScripts`) keep:
/// pages and leases under the epoch and the product's generation tokens, pages aged and leases
/// lapsing on the injected time line (a `ManualTimeSource` in tests), a store refused unless its
/// claim still holds the lease at the current tokens, invalidations that replace a token and
/// count their receivers. So the fleet's rules are tested with several services on one store,
/// no server and no clock.
package final class InMemorySharedPageStore: SharedPageStore {
    private struct Key: Hashable {
        let generation: SharedGeneration
        let id: String
    }

    private struct Stored {
        let page: SharedPage
        let at: Duration
    }

    private struct Lease {
        let token: String
        var until: Duration
    }

    private struct State {
        var epoch: String?
        var generations: [String: String] = [:]
        var pages: [Key: Stored] = [:]
        var leases: [Key: Lease] = [:]
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
            let epoch = self.epoch ?? token("e")
            self.epoch = epoch
            let generation = generations[id] ?? token("g")
            generations[id] = generation
            return SharedGeneration(epoch: epoch, generation: generation)
        }

        /// The lease at `key` unless it lapsed by `now`.
        mutating func lease(at key: Key, now: Duration) -> Lease? {
            guard let lease = leases[key] else { return nil }
            guard lease.until > now else {
                leases[key] = nil
                return nil
            }
            return lease
        }
    }

    private let time: any TimeSource
    private let leaseDuration: Duration
    private let state = Locked(State())

    package init(time: any TimeSource, leaseDuration: Duration = SharedCacheSettings().leaseDuration) {
        self.time = time
        self.leaseDuration = leaseDuration
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
            guard let epoch = state.epoch, let generation = state.generations[id] else { return false }
            return state.lease(at: Key(generation: SharedGeneration(epoch: epoch, generation: generation), id: id), now: now) != nil
        }
    }

    package func read(id: String, deadline: Duration) async throws(SharedStoreFailure) -> SharedRead {
        let now = time.now
        let leaseDuration = self.leaseDuration
        return try answer { state in
            let generation = state.generation(of: id)
            let key = Key(generation: generation, id: id)
            if let stored = state.pages[key] {
                let age = now - stored.at
                if age < stored.page.lifetime { return .page(stored.page, age: age, generation: generation) }
                state.pages[key] = nil
            }
            guard state.lease(at: key, now: now) == nil else { return .loadingElsewhere }
            let token = state.token("t")
            state.leases[key] = Lease(token: token, until: now + leaseDuration)
            return .claimed(SharedClaim(id: id, generation: generation, token: token))
        }
    }

    package func claim(id: String, generation: SharedGeneration, deadline: Duration) async throws(SharedStoreFailure) -> SharedClaim? {
        let now = time.now
        let leaseDuration = self.leaseDuration
        return try answer { state in
            let key = Key(generation: generation, id: id)
            guard state.lease(at: key, now: now) == nil else { return nil }
            let token = state.token("t")
            state.leases[key] = Lease(token: token, until: now + leaseDuration)
            return SharedClaim(id: id, generation: generation, token: token)
        }
    }

    package func claimCurrent(id: String, deadline: Duration) async throws(SharedStoreFailure) -> SharedClaim? {
        let now = time.now
        let leaseDuration = self.leaseDuration
        return try answer { state in
            let generation = state.generation(of: id)
            let key = Key(generation: generation, id: id)
            guard state.lease(at: key, now: now) == nil else { return nil }
            let token = state.token("t")
            state.leases[key] = Lease(token: token, until: now + leaseDuration)
            return SharedClaim(id: id, generation: generation, token: token)
        }
    }

    package func renew(_ claim: SharedClaim, deadline: Duration) async throws(SharedStoreFailure) -> Bool {
        let now = time.now
        let leaseDuration = self.leaseDuration
        let renewed: Result<Bool, SharedStoreFailure> = try answer { state in
            state.renewals += 1
            if !state.renewalFailures.isEmpty { return .failure(state.renewalFailures.removeFirst()) }
            let key = Key(generation: claim.generation, id: claim.id)
            guard state.lease(at: key, now: now)?.token == claim.token else { return .success(false) }
            state.leases[key]?.until = now + leaseDuration
            return .success(true)
        }
        return try renewed.get()
    }

    package func store(
        _ page: SharedPage, under claim: SharedClaim, keepingLease: Bool, deadline: Duration
    ) async throws(SharedStoreFailure) -> Bool {
        let now = time.now
        return try answer { state in
            let key = Key(generation: claim.generation, id: claim.id)
            guard state.epoch == claim.generation.epoch, state.generations[claim.id] == claim.generation.generation,
                  state.lease(at: key, now: now)?.token == claim.token
            else { return false }
            state.pages[key] = Stored(page: page, at: now)
            if !keepingLease { state.leases[key] = nil }
            return true
        }
    }

    package func release(_ claim: SharedClaim, deadline: Duration) async throws(SharedStoreFailure) {
        let now = time.now
        try answer { state in
            let key = Key(generation: claim.generation, id: claim.id)
            if state.lease(at: key, now: now)?.token == claim.token { state.leases[key] = nil }
        }
    }

    package func invalidate(_ scope: InvalidationScope, deadline: Duration) async throws(SharedStoreFailure) -> SharedInvalidationReceipt {
        try answer { state in
            switch scope {
            case .product(let id): state.generations[id] = state.token("g")
            case .products(let ids): for id in ids { state.generations[id] = state.token("g") }
            case .everything: state.epoch = state.token("e")
            }
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
