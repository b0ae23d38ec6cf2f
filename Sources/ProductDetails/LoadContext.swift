/// What every step of one load needs to know, carried as one value from the in-flight table
/// through the shared-cache phase to the upstream calls.
struct LoadContext: Sendable {
    let id: String
    /// The request that started the load: passed upstream as `X-Request-ID`.
    let requestID: String
    let trace: TraceContext?
    /// The request that started the load, told of its upstream work (``LoadObserver``).
    let observer: (any LoadObserver)?
    /// Taken before the load began: a store an invalidation overtook is refused.
    let token: LoadToken
    /// Absolute, on the service's time line: bounds the whole load, retries and waits included.
    let deadline: Duration
    /// Where the load's own tasks run (the starting request's event loop).
    let executor: (any TaskExecutor)?
}
