import Locking
import Synchronization
import Timekeeping

/// A bounded, thread-safe cache of ready-to-serve values with TTL, stale windows and
/// generation-guarded stores.
///
/// Implementation notes:
/// - One `Mutex` guards everything. A lookup is one short lock with no `await`, so it can run on
///   any event-loop thread; events are reported after the lock is released, never under it.
/// - Bounded by entry count and by total cost in bytes (the caller states each value's cost);
///   least-recently-used eviction is O(1) via ``LRUEntries``. A value costing more than
///   `maxBytes` is refused rather than emptying the cache for it.
/// - Expiry uses the injected ``TimeSource``: an entry is fresh for its TTL, then may be served
///   stale while inside its stale-while-revalidate or stale-if-error window, then is removed on
///   the next lookup (reported as an `"expired"` eviction).
/// - Invalidation bumps a generation (``InvalidationLog``): a load takes a ``LoadToken`` before it
///   starts, and its store is refused if the key, one of its dependencies (the other products a
///   page shows) or everything was invalidated meanwhile, so a forgotten answer never comes back.
///   An entry whose dependency is invalidated later is dropped when next looked up.
package final class ResponseCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct State {
        var entries = LRUEntries<Key, Value>()
        var invalidations: InvalidationLog<Key>
    }

    package let maxEntries: Int
    package let maxBytes: Int
    private let state: Locked<State>
    private let time: any TimeSource
    private let events: any PageEvents
    /// Nanoseconds an entry may be trusted as fresh whatever its TTL (`Int64.max`: no cap). Set
    /// while invalidations sent by other replicas may be missed (see ``capFreshness(to:)``).
    private let freshnessCapNanoseconds = Atomic<Int64>(.max)

    /// - Parameter invalidationMemory: how many recent per-key invalidations are remembered exactly;
    ///   loads older than the oldest remembered one are refused (see ``InvalidationLog``).
    package init(
        maxEntries: Int,
        maxBytes: Int,
        time: any TimeSource,
        events: any PageEvents = NoEvents(),
        invalidationMemory: Int = 16_384
    ) {
        self.maxEntries = maxEntries
        self.maxBytes = maxBytes
        self.time = time
        self.events = events
        self.state = Locked(State(invalidations: InvalidationLog(capacity: invalidationMemory)))
    }

    package var count: Int {
        state.withLock { $0.entries.count }
    }

    package var totalBytes: Int {
        state.withLock { $0.entries.totalCost }
    }

    /// Keys from most to least recently used (O(n); for tests and diagnostics).
    package var keysByRecency: [Key] {
        state.withLock { $0.entries.keysByRecency }
    }

    /// Caps how long any entry counts as fresh (`nil` lifts the cap).
    ///
    /// In fleet mode, while this replica may miss invalidations sent by others (its subscription
    /// is down), an entry older than the cap is not served as fresh: it is stale, served while
    /// one load refreshes it (as in stale-while-revalidate, even within its TTL), so a page
    /// invalidated elsewhere stops being served within the cap plus one load rather than at its
    /// TTL, and no client waits for the reload. It may still stand in for a failed load.
    package func capFreshness(to cap: Duration?) {
        let nanoseconds = cap.map(\.wholeNanoseconds)
        freshnessCapNanoseconds.store(nanoseconds ?? .max, ordering: .relaxed)
    }

    /// The cap set by ``capFreshness(to:)``, if any.
    package var freshnessCap: Duration? {
        let nanoseconds = freshnessCapNanoseconds.load(ordering: .relaxed)
        return nanoseconds == .max ? nil : .nanoseconds(nanoseconds)
    }

    /// Finds `key`, marking it recently used; removes it if it is past every window, or if a
    /// product it depends on was invalidated after its load began.
    package func lookup(_ key: Key) -> CacheLookup<Value> {
        let now = time.now
        let cap = freshnessCap
        let (result, dropped) = state.withLock { state -> (CacheLookup<Value>, DropReason?) in
            guard let position = state.entries.position(of: key), let entry = state.entries.entry(at: position) else {
                return (.miss, nil)
            }
            // Dependencies are checked when read, not purged when invalidated, so a purge costs
            // the same however many pages show the product; an unchanged generation (nothing
            // invalidated since the last check) skips the check.
            let generation = state.invalidations.generation
            if entry.checkedAt != generation, !entry.dependencies.isEmpty {
                guard state.invalidations.allowsStore(for: entry.dependencies, token: entry.token) else {
                    state.entries.remove(key)
                    return (.miss, .dependencyInvalidated)
                }
                state.entries.markChecked(at: position, generation: generation)
            }
            let age = now - entry.storedAt
            let trustedFor = cap.map { min($0, entry.freshFor) } ?? entry.freshFor
            if age < trustedFor {
                state.entries.touch(at: position)
                return (.fresh(entry.value, remaining: trustedFor - age), nil)
            }
            let staleness = max(.zero, age - entry.freshFor)
            // Within its TTL only the cap made it stale: refreshed in the background, like a page
            // within stale-while-revalidate.
            let revalidate = staleness < entry.staleWhileRevalidate || age < entry.freshFor
            let usableOnError = staleness < entry.staleIfError || age < entry.freshFor
            guard revalidate || usableOnError else {
                state.entries.remove(key)
                return (.miss, .expired)
            }
            state.entries.touch(at: position)
            return (.stale(entry.value, age: staleness, revalidate: revalidate, usableOnError: usableOnError), nil)
        }
        switch dropped {
        case .expired?: events.eviction(reason: "expired")
        case .dependencyInvalidated?: events.dependentPageDropped()
        case nil: break
        }
        return result
    }

    private enum DropReason {
        case expired
        case dependencyInvalidated
    }

    /// The generation snapshot a load must take before it starts, and hand back to `store`.
    package func loadToken(for key: Key) -> LoadToken {
        state.withLock { $0.invalidations.token() }
    }

    /// Stores `value` as the most recently used entry, evicting least recently used ones to stay
    /// within both bounds.
    ///
    /// - Parameter age: how long ago the value was made (a page read from the shared cache was
    ///   stored there earlier): its windows count from then, so it expires when its origin does.
    /// - Parameter dependencies: other keys whose invalidation makes this entry unservable (a
    ///   slice, so that a value's own list is kept without a copy).
    /// - Returns: `false` when refused: `key`, one of its `dependencies` or everything was
    ///   invalidated after `token` was taken, or `cost` alone exceeds `maxBytes`.
    @discardableResult
    package func store(
        _ value: Value,
        for key: Key,
        cost: Int,
        ttl: Duration,
        staleIfError: Duration = .zero,
        staleWhileRevalidate: Duration = .zero,
        age: Duration = .zero,
        dependencies: ArraySlice<Key> = [],
        token: LoadToken
    ) -> Bool {
        let now = time.now
        let cost = max(0, cost)
        // Counted, not listed: a full cache evicts at nearly every store, and a list is an
        // allocation each time.
        let (stored, capacityEvictions, byteEvictions) = state.withLock { state -> (Bool, Int, Int) in
            guard state.invalidations.allowsStore(for: key, token: token),
                  state.invalidations.allowsStore(for: dependencies, token: token)
            else { return (false, 0, 0) }
            guard cost <= maxBytes, maxEntries > 0 else { return (false, 0, 0) }
            // Made here, where the slot takes it whole: built outside, the closure could only copy it.
            state.entries.insert(CacheEntry(
                key: key, value: value, cost: cost, storedAt: now - max(.zero, age),
                freshFor: ttl, staleIfError: staleIfError, staleWhileRevalidate: staleWhileRevalidate,
                dependencies: dependencies, token: token, checkedAt: state.invalidations.generation
            ))
            var (capacity, bytes) = (0, 0)
            // The new entry is the newest and fits on its own, so these loops never evict it.
            while state.entries.count > maxEntries, state.entries.removeOldest() != nil {
                capacity += 1
            }
            while state.entries.totalCost > maxBytes, state.entries.removeOldest() != nil {
                bytes += 1
            }
            return (true, capacity, bytes)
        }
        for _ in 0..<capacityEvictions { events.eviction(reason: "capacity") }
        for _ in 0..<byteEvictions { events.eviction(reason: "bytes") }
        return stored
    }

    /// Forgets `key` and refuses stores from loads that started before now.
    package func invalidate(_ key: Key) {
        state.withLock { state in
            state.invalidations.invalidate(key)
            state.entries.remove(key)
        }
    }

    /// Forgets every key of `keys` (one generation for all) and refuses stores from loads that
    /// started before now.
    package func invalidate(_ keys: [Key]) {
        state.withLock { state in
            state.invalidations.invalidate(keys)
            for key in keys { state.entries.remove(key) }
        }
    }

    /// Forgets everything and refuses stores from every load that started before now.
    package func invalidateAll() {
        state.withLock { state in
            state.invalidations.invalidateAll()
            state.entries.removeAll()
        }
    }

    /// How many per-key invalidations are remembered (bounded by `invalidationMemory`).
    package var rememberedInvalidations: Int {
        state.withLock { $0.invalidations.rememberedKeyCount }
    }
}

/// What ``ResponseCache/lookup(_:)`` found for a key.
package enum CacheLookup<Value: Sendable>: Sendable {
    /// Within its TTL; `remaining` is how much longer it stays fresh.
    case fresh(Value, remaining: Duration)
    /// Past its TTL but still inside a stale window. `age` is how long it has been stale;
    /// `revalidate` means it may be served while one background refresh runs (stale-while-
    /// revalidate); `usableOnError` means it may stand in for a failed load (stale-if-error).
    case stale(Value, age: Duration, revalidate: Bool, usableOnError: Bool)
    case miss
}

extension CacheLookup: Equatable where Value: Equatable {}
