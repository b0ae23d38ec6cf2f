import Synchronization

/// The table of running loads: concurrent requests for one key share one load.
///
/// Implementation notes (after Go's singleflight, made cancellation-aware):
/// - A load is an unstructured `Task` owned by the table, not by the request that started it,
///   so the first caller leaving does not fail the others. It starts with the first caller's
///   task executor preference, so its upstream calls run on that caller's event loop.
/// - Each waiter is a continuation. A waiter whose task is cancelled is resumed with
///   `CancellationError` without touching the others; when the last one leaves, the load's task
///   is cancelled (its upstream requests are abandoned) and it is forgotten.
/// - The entry is removed when the load ends, whatever the outcome: this is never a cache, and a
///   failure is never remembered.
/// - ``detach(_:)`` stops later callers from joining a running load (its current waiters still
///   get its answer); invalidation uses it so that nobody who arrives later sees the old data.
package actor InFlightLoads<Key: Hashable & Sendable, Value: Sendable> {
    private struct Load {
        let key: Key
        let task: Task<Void, Never>
        /// Written by `value(for:)` (join) and `leave` (cancelled waiter); drained by `complete`.
        var waiters: [UInt64: CheckedContinuation<Value, any Error>] = [:]
        /// A background refresh keeps running when its (optional) waiters leave.
        let survivesWithoutWaiters: Bool
    }

    /// The most loads that may run at once.
    package nonisolated let maxLoads: Int
    private let events: any PageEvents
    /// Every running load by id, including detached ones.
    private var loads: [UInt64: Load] = [:]
    /// The one load per key that new callers may join.
    private var joinableLoads: [Key: UInt64] = [:]
    private var nextID: UInt64 = 0
    /// Mirrors `loads.count` so that metrics can read it without an actor hop.
    private nonisolated let runningCount = Atomic<Int>(0)
    /// Mirrors the keys of `joinableLoads`, so that a request can tell without an actor hop
    /// whether it would join a load (``isJoinable(_:)``).
    private nonisolated let joinableKeys = Mutex<Set<Key>>([])

    package init(maxLoads: Int = .max, events: any PageEvents = NoEvents()) {
        self.maxLoads = maxLoads
        self.events = events
    }

    /// How many loads are running (readable from any thread without an actor hop).
    package nonisolated var count: Int {
        runningCount.load(ordering: .relaxed)
    }

    /// Answers with the value of the running load for `key`, starting one if there is none.
    ///
    /// - Parameters:
    ///   - joinable: `false` starts a new load even if one is running for `key`, and makes the new
    ///     one the load later callers join, so nobody joins the older one any more.
    ///   - executor: the task executor the load runs on if this call starts it (`nil`: default).
    /// - Returns: the value, and `collapsed: true` when this caller joined another's load.
    /// - Throws: the load's error; `CancellationError` at once if this caller's task is cancelled;
    ///   ``InFlightLoadsOverloaded`` when a new load would pass ``maxLoads``.
    package func value(
        for key: Key,
        joinable: Bool = true,
        executor: (any TaskExecutor)? = nil,
        load: @escaping @Sendable () async throws -> Value
    ) async throws -> (value: Value, collapsed: Bool) {
        try await value(for: key, joinable: joinable, executor: executor) { (_: EarlyAnswer) in try await load() }
    }

    /// ``value(for:joinable:executor:load:)`` for a load that may answer before it ends: once it
    /// calls its ``EarlyAnswer``, its waiters have that value and it is forgotten (nobody joins
    /// it, nobody leaving cancels it), while its task goes on to finish what it started.
    package func value(
        for key: Key,
        joinable: Bool = true,
        executor: (any TaskExecutor)? = nil,
        load: @escaping @Sendable (EarlyAnswer) async throws -> Value
    ) async throws -> (value: Value, collapsed: Bool) {
        try Task.checkCancellation()
        let loadID: UInt64
        let collapsed: Bool
        if joinable, let running = joinableLoads[key] {
            loadID = running
            collapsed = true
            events.coalesced()
        } else {
            loadID = try start(key: key, executor: executor, survivesWithoutWaiters: false, load: load)
            collapsed = false
        }
        nextID += 1
        let waiterID = nextID
        // No suspension between here and the registration below, so neither the load's completion
        // nor a cancellation's `leave` (both need this actor) can run before the waiter is stored.
        let value = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                self.loads[loadID]?.waiters[waiterID] = continuation
            }
        } onCancel: {
            Task { await self.leave(loadID: loadID, waiterID: waiterID) }
        }
        return (value, collapsed)
    }

    /// Starts a load for `key` that nobody waits for (a stale-while-revalidate refresh), unless one
    /// is already running for it or the table is full.
    ///
    /// Callers arriving later join it like any other load; it is not cancelled when they leave.
    /// - Returns: whether a load was started.
    @discardableResult
    package func startBackgroundLoad(
        for key: Key,
        executor: (any TaskExecutor)? = nil,
        load: @escaping @Sendable (EarlyAnswer) async throws -> Value
    ) -> Bool {
        guard joinableLoads[key] == nil else { return false }
        return (try? start(key: key, executor: executor, survivesWithoutWaiters: true, load: load)) != nil
    }

    /// ``startBackgroundLoad(for:executor:load:)`` for a load that cannot answer early.
    @discardableResult
    package func startBackgroundLoad(
        for key: Key,
        executor: (any TaskExecutor)? = nil,
        load: @escaping @Sendable () async throws -> Value
    ) -> Bool {
        startBackgroundLoad(for: key, executor: executor) { (_: EarlyAnswer) in try await load() }
    }

    /// Later callers for `key` start a new load instead of joining the running one.
    package func detach(_ key: Key) {
        joinableLoads[key] = nil
        _ = joinableKeys.withLock { $0.remove(key) }
    }

    /// Later callers for every key start new loads instead of joining running ones.
    package func detachAll() {
        joinableLoads.removeAll()
        joinableKeys.withLock { $0.removeAll() }
    }

    /// Whether a load new callers may join is running for `key`, read without an actor hop: by
    /// the time the caller acts on it, such a load may have started or ended.
    package nonisolated func isJoinable(_ key: Key) -> Bool {
        joinableKeys.withLock { $0.contains(key) }
    }

    private func start(
        key: Key,
        executor: (any TaskExecutor)?,
        survivesWithoutWaiters: Bool,
        load: @escaping @Sendable (EarlyAnswer) async throws -> Value
    ) throws(InFlightLoadsOverloaded) -> UInt64 {
        guard loads.count < maxLoads else { throw InFlightLoadsOverloaded(limit: maxLoads) }
        nextID += 1
        let loadID = nextID
        let early = EarlyAnswer(loads: self, loadID: loadID)
        let task = Task(executorPreference: executor) {
            let result: Result<Value, any Error>
            do {
                result = .success(try await load(early))
            } catch {
                result = .failure(error)
            }
            await self.complete(loadID: loadID, with: result)
        }
        loads[loadID] = Load(key: key, task: task, survivesWithoutWaiters: survivesWithoutWaiters)
        joinableLoads[key] = loadID
        joinableKeys.withLock { _ = $0.insert(key) }
        runningCount.wrappingAdd(1, ordering: .relaxed)
        events.loadStarted()
        return loadID
    }

    /// Answers a load's waiters before it ends (``value(for:joinable:executor:load:)``).
    /// The table and the load, not a closure: a load gets one without an allocation.
    package struct EarlyAnswer: Sendable {
        let loads: InFlightLoads
        let loadID: UInt64

        package func callAsFunction(_ value: Value) async {
            await loads.complete(loadID: loadID, with: .success(value))
        }
    }

    /// Answers the waiters and forgets the load; a load answered early ends here a second time,
    /// and that is ignored.
    private func complete(loadID: UInt64, with result: Result<Value, any Error>) {
        guard let load = forget(loadID) else { return }
        events.loadFinished()
        for continuation in load.waiters.values {
            continuation.resume(with: result)
        }
    }

    private func leave(loadID: UInt64, waiterID: UInt64) {
        guard let continuation = loads[loadID]?.waiters.removeValue(forKey: waiterID) else { return }
        continuation.resume(throwing: CancellationError())
        guard let load = loads[loadID], load.waiters.isEmpty, !load.survivesWithoutWaiters else { return }
        _ = forget(loadID)
        load.task.cancel()
        events.loadCancelled()
    }

    private func forget(_ loadID: UInt64) -> Load? {
        guard let load = loads.removeValue(forKey: loadID) else { return nil }
        if joinableLoads[load.key] == loadID {
            joinableLoads[load.key] = nil
            _ = joinableKeys.withLock { $0.remove(load.key) }
        }
        runningCount.wrappingSubtract(1, ordering: .relaxed)
        return load
    }
}

/// Thrown by ``InFlightLoads/value(for:joinable:executor:load:)`` when starting one more load
/// would pass ``InFlightLoads/maxLoads``; joining a running load is still allowed.
package struct InFlightLoadsOverloaded: Error, Sendable, Equatable {
    package let limit: Int
}
