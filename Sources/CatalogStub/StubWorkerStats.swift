/// One route's workers (`STUB_WORKERS`, `STUB_SERVICE_MS`) as `stats()` reports them. All zero
/// when the stub runs without workers.
package struct StubWorkerStats: Sendable, Equatable {
    /// The route's workers; 0 when there is no limit.
    package var workers: Int
    /// Workers serving a request right now.
    package var busy: Int
    /// Requests waiting for a worker right now (callers that left included: they keep their turn).
    package var queued: Int
    /// Requests whose service time ended, since start or the last reset.
    package var served: Int
    /// Of those, the ones whose caller had gone before the answer could be written: work a
    /// thread-pool backend does for nobody.
    package var servedForGone: Int

    package init(workers: Int = 0, busy: Int = 0, queued: Int = 0, served: Int = 0, servedForGone: Int = 0) {
        self.workers = workers
        self.busy = busy
        self.queued = queued
        self.served = served
        self.servedForGone = servedForGone
    }
}
