import ProductDetails
import Locking
import Timekeeping

/// The shared cache as the service uses it: the store behind a circuit breaker, each call bounded
/// by a deadline, every outcome counted.
///
/// A call the breaker refuses, or that fails, yields `nil` and the caller carries on as a single
/// node: Redis slow or down costs a request at most one short wait, and once the breaker is open
/// nothing at all.
package final class SharedCache: Sendable {
    package let store: any SharedPageStore
    package let settings: SharedCacheSettings
    let time: any TimeSource
    let events: any SharedCacheEvents
    private let breaker: Locked<CircuitBreaker>
    private let invalidations: Locked<SharedInvalidationLog>

    package init(store: any SharedPageStore, settings: SharedCacheSettings = SharedCacheSettings(), time: any TimeSource, events: any SharedCacheEvents = NoEvents()) {
        self.store = store
        self.settings = settings
        self.time = time
        self.events = events
        self.breaker = Locked(CircuitBreaker(failureThreshold: settings.breakerFailures, openFor: settings.breakerOpenFor))
        self.invalidations = Locked(SharedInvalidationLog(capacity: settings.invalidationMemory))
    }

    /// The stamp of a page whose load begins now: the latest fleet invalidation known; `nil`
    /// until the fleet's log was read, when what the page shows cannot be vouched for and it is
    /// not shared.
    var stamp: UInt64? {
        invalidations.withLock { $0.knownFrom == .max ? nil : $0.latest }
    }

    /// An invalidation the fleet sent (this replica's own included), as the broadcast told it.
    /// Returns `false` when it was known already: this replica sent it (and dropped its copies
    /// before sending), or the message came twice.
    @discardableResult
    package func received(_ sequence: UInt64, _ scope: InvalidationScope) -> Bool {
        invalidations.withLock { log in
            switch scope {
            case .everything: log.recordEverything(sequence)
            default: log.record(sequence, ids: scope.ids)
            }
        }
    }

    /// The subscription (re)started: until the fleet's invalidation log is read, the shared cache
    /// is not used (a message may have been missed, even one invalidating everything).
    /// Reads it, once a second until it answers (Redis may be down right after a subscription,
    /// or its breaker open), unless a later subscription started meanwhile.
    package func subscribed() async {
        let ticket = invalidations.withLock { $0.awaitHistory() }
        while invalidations.withLock({ $0.subscription == ticket }) {
            let result = await guarded({ deadline async throws(SharedStoreFailure) in
                try await store.invalidationHistory(deadline: deadline)
            }, deadline: deadline())
            if case .success(let history)? = result {
                invalidations.withLock { $0.apply(history, for: ticket) }
                return
            }
            do { try await time.sleep(for: .seconds(1)) } catch { return }
        }
    }

    /// Whether the fleet's invalidation log was read since the last subscription (the
    /// `invalidation_log_read` gauge reads it when scraped).
    package var knowsHistory: Bool {
        invalidations.withLock { $0.knownFrom != .max }
    }

    /// Whether `page` may be served: neither everything nor a product it shows besides its own
    /// was invalidated after it was stamped, as far as this replica can judge.
    func accepts(_ page: SharedPage) -> Bool {
        invalidations.withLock { $0.accepts(dependencies: page.document.dependencies, stamp: page.stamp) }
    }

    package var breakerState: CircuitBreaker.State {
        breaker.withLock { $0.state }
    }

    /// A deadline one Redis budget from now.
    func deadline() -> Duration {
        time.now + settings.timeout
    }

    /// Reads `id`, counting the result; `nil` when skipped or failed. `peeked`: a ``peek(id:deadline:)``
    /// just found nothing (``SharedPageStore/read(id:deadline:peeked:)``).
    func read(id: String, deadline: Duration, peeked: Bool = false) async -> SharedRead? {
        let result = await guarded({ deadline async throws(SharedStoreFailure) in
            try await store.read(id: id, deadline: deadline, peeked: peeked)
        }, deadline: deadline)
        switch result {
        case .success(let read): return counted(read)
        case .failure(let failure):
            if let result = failure.readResult { events.sharedRead(result) }
            return nil
        case nil:
            return nil
        }
    }

    /// Looks at `id` without taking its lease (``SharedPageStore/peek(id:deadline:)``). What it
    /// found is counted as a read's result; `.unknown` is not, as the read that follows will be.
    func peek(id: String, deadline: Duration) async -> SharedPeek {
        let result = await guarded({ deadline async throws(SharedStoreFailure) in try await store.peek(id: id, deadline: deadline) }, deadline: deadline)
        guard let result else { return .failed }
        return counted(result)
    }

    /// The breaker's admission of a call to the store due by `deadline`: nil when refused, else
    /// whether the call was cut short (``guarded(_:deadline:)`` says why that matters).
    ///
    /// ``peek(id:deadline:)`` without a task takes three steps around the store's
    /// ``SharedPageStore/peek(id:deadline:completion:)``, which its caller makes itself (one
    /// object of its own carries the look, with no closure per layer): this admission (refused:
    /// a `.failed` look); then, with the store's result, ``finishPeek(_:_:)``; or, when the store
    /// cannot take the call from this thread, ``abandonPeek()``. `now`: the time on the
    /// service's time line, when the caller has just read it.
    func admit(deadline: Duration, now: Duration? = nil) -> StoreAdmission? {
        let now = now ?? time.now
        let admission = breaker.withLock { $0.admit(now: now) }
        if let change = admission.changedTo { events.redisBreaker(change) }
        guard admission.admitted else { return nil }
        return StoreAdmission(cutShort: deadline - now < settings.timeout / 2)
    }

    /// What an admitted peek found, told to the breaker and counted as ``peek(id:deadline:)``
    /// counts it.
    func finishPeek(_ result: Result<SharedRead?, SharedStoreFailure>, _ admission: StoreAdmission) -> SharedPeek {
        settle(result, cutShort: admission.cutShort)
        return counted(result)
    }

    /// A peek's result counted: what it found as a read's result, a failure as one; `.unknown`
    /// not, as the read that follows will be.
    private func counted(_ result: Result<SharedRead?, SharedStoreFailure>) -> SharedPeek {
        switch result {
        case .success(let read?): return .found(counted(read))
        case .success(nil): return .unknown
        case .failure(let failure):
            if let result = failure.readResult { events.sharedRead(result) }
            return .failed
        }
    }

    /// An admitted peek the store could not send: the admission is handed back, for the `peek`
    /// the caller makes instead.
    func abandonPeek() {
        breaker.withLock { $0.abandonProbe() }
    }

    /// `read` counted; a page that shows a product invalidated since it was stamped becomes
    /// `.invalidated`.
    private func counted(_ read: SharedRead) -> SharedRead {
        switch read {
        case .page(let page, _, let generation) where !accepts(page):
            events.sharedRead(.miss)
            return .invalidated(generation: generation)
        case .page(let page, let age, _):
            events.sharedRead(page.standing(age: age).isFresh ? .hit : .stale)
        case .claimed, .loadingElsewhere, .invalidated:
            events.sharedRead(.miss)
        }
        return read
    }

    func claim(id: String, generation: SharedGeneration, deadline: Duration) async -> SharedClaim? {
        try? await guarded({ deadline async throws(SharedStoreFailure) in
            try await store.claim(id: id, generation: generation, deadline: deadline)
        }, deadline: deadline)?.get()
    }

    /// The lease for a refresh the client asked for: taken, held by another replica, or not to be
    /// had (the call failed, or the breaker refused it).
    func claimCurrent(id: String) async -> RefreshClaim {
        switch await guarded({ deadline async throws(SharedStoreFailure) in
            try await store.claimCurrent(id: id, deadline: deadline)
        }, deadline: deadline()) {
        case .success(let claim?): .claimed(claim)
        case .success(nil): .heldElsewhere
        case .failure, nil: .unavailable
        }
    }

    /// `true` renewed, `false` lost (lapsed and taken by another), `nil` unknown: the call failed
    /// or the breaker refused it, and the lease may well still be this holder's.
    func renew(_ claim: SharedClaim) async -> Bool? {
        let result = await guarded({ deadline async throws(SharedStoreFailure) in try await store.renew(claim, deadline: deadline) }, deadline: deadline())
        return try? result?.get()
    }

    func store(_ page: SharedPage, under claim: SharedClaim, keepingLease: Bool = false) async -> Bool {
        let result = await guarded({ deadline async throws(SharedStoreFailure) in
            try await store.store(page, under: claim, keepingLease: keepingLease, deadline: deadline)
        }, deadline: deadline())
        return (try? result?.get()) ?? false
    }

    func release(_ claim: SharedClaim) async {
        _ = await guarded({ deadline async throws(SharedStoreFailure) in try await store.release(claim, deadline: deadline) }, deadline: deadline())
    }

    /// Receivers of the invalidation, or why it could not be sent. The sender knows of it at
    /// once, before its own message comes back: a page it reads meanwhile is judged by it.
    func invalidate(_ scope: InvalidationScope) async -> Result<Int, SharedStoreFailure> {
        let result = await guarded({ deadline async throws(SharedStoreFailure) in
            try await store.invalidate(scope, deadline: deadline)
        }, deadline: time.now + settings.invalidationTimeout)
        guard let result else {
            return .failure(.unavailable("The shared cache is not being asked: its circuit breaker is open after repeated failures."))
        }
        return result.map { receipt in
            received(receipt.sequence, scope)
            return receipt.receivers
        }
    }

    /// Runs `call` if the breaker admits it, and tells the breaker how it went.
    ///
    /// Two failures tell it nothing: a caller that left, and a time-out of a command that had
    /// less than half of `REDIS_TIMEOUT_MS` (what was left of its miss's budget, after many looks
    /// while another replica loaded): a healthy Redis can miss so short a deadline, and counting
    /// it would let slow loads elsewhere open the breaker. A miss's first command always has the
    /// whole budget, so a Redis that stopped answering is still counted.
    private func guarded<T: Sendable>(
        _ call: (Duration) async throws(SharedStoreFailure) -> T, deadline: Duration
    ) async -> Result<T, SharedStoreFailure>? {
        guard let admission = admit(deadline: deadline) else { return nil }
        let result: Result<T, SharedStoreFailure>
        do {
            result = .success(try await call(deadline))
        } catch {
            result = .failure(error)
        }
        settle(result, cutShort: admission.cutShort)
        return result
    }

    /// Tells the breaker how an admitted call went (`cutShort`: it had under half the budget).
    private func settle<T>(_ result: Result<T, SharedStoreFailure>, cutShort: Bool) {
        if case .failure(let failure) = result, failure == .cancelled || Task.isCancelled || (failure == .timedOut && cutShort) {
            breaker.withLock { $0.abandonProbe() }
            return
        }
        let success: Bool
        if case .success = result { success = true } else { success = false }
        let time = self.time
        if let change = breaker.withLock({ $0.record(success: success, now: time.now) }) {
            events.redisBreaker(change)
        }
    }
}

extension CacheLookup {
    var isFresh: Bool {
        if case .fresh = self { return true }
        return false
    }
}

/// What the shared cache (fleet mode) reports: its reads, its breaker, and this replica's part in
/// fleet-wide loads. The service reports a lease through ``SharedCache/events``, so every shared
/// cache event takes one route to one sink.
///
/// Calls happen on request paths, never while a lock is held: implementations must be cheap and
/// non-blocking.
package protocol SharedCacheEvents: Sendable {
    /// The shared cache was read.
    func sharedRead(_ result: SharedReadResult)
    /// This replica took part in a fleet-wide load.
    func lease(_ result: LeaseResult)
    /// The Redis breaker (the shared cache's circuit breaker) changed state.
    func redisBreaker(_ state: CircuitBreaker.State)
}

extension NoEvents: SharedCacheEvents {
    package func sharedRead(_ result: SharedReadResult) {}
    package func lease(_ result: LeaseResult) {}
    package func redisBreaker(_ state: CircuitBreaker.State) {}
}

/// The breaker's leave for one call to the store (``SharedCache/admit(deadline:)``).
struct StoreAdmission: Sendable {
    /// The call had under half a Redis budget: a timeout then says nothing about Redis.
    let cutShort: Bool
}

/// What a refresh a client asked for (`no-cache`) got of the product's lease.
enum RefreshClaim: Sendable, Equatable {
    /// This replica loads under it, and shares the page.
    case claimed(SharedClaim)
    /// Another replica loads the product now: this refresh loads alone rather than wait for it.
    case heldElsewhere
    /// The shared cache did not answer (or its breaker is open): the refresh loads alone.
    case unavailable
}
