/// What every step of one load needs to know, carried as one value from the in-flight table
/// through the shared-cache phase to the upstream calls.
///
/// An immutable class, not a struct: a load copies it into each upstream call, each of their
/// closures and child tasks, and each step, and a struct copy retains every reference it holds
/// (the request id, the trace, the observer, the token, the executor) where a class copy retains
/// one.
package final class LoadContext: Sendable {
    package let id: String
    /// The request that started the load: passed upstream as `X-Request-ID`.
    package let requestID: String
    package let trace: TraceContext?
    /// The request that started the load, told of its upstream work (``LoadObserver``).
    package let observer: (any LoadObserver)?
    /// Taken before the load began: a store an invalidation overtook is refused.
    package let token: LoadToken
    /// Fleet mode: the latest fleet invalidation known when the load began, stamped on the page
    /// it shares; `nil` on a single node, or before this replica read the fleet's log (then the
    /// page is not shared).
    package let stamp: UInt64?
    /// Absolute, on the service's time line: bounds the whole load, retries and waits included.
    package let deadline: Duration
    /// Where the load's own tasks run (the starting request's event loop).
    package let executor: (any TaskExecutor)?
    /// A stale-while-revalidate refresh: its callers have a page already, so it never waits for
    /// upstream room.
    package let background: Bool

    package init(
        id: String, requestID: String, trace: TraceContext?, observer: (any LoadObserver)?, token: LoadToken, stamp: UInt64?,
        deadline: Duration, executor: (any TaskExecutor)?, background: Bool = false
    ) {
        self.id = id
        self.requestID = requestID
        self.trace = trace
        self.observer = observer
        self.token = token
        self.stamp = stamp
        self.deadline = deadline
        self.executor = executor
        self.background = background
    }
}
