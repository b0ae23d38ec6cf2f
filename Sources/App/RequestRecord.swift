import Synchronization

/// What the domain did for one request, gathered for its log line. Reached through a task-local,
/// so the load task a request starts (which inherits task-locals) reports into it; a request
/// that joined another's load records no upstream work of its own.
final class RequestRecord: Sendable {
    @TaskLocal static var current: RequestRecord?

    private let loads = Atomic<Int>(0)
    private let retries = Atomic<Int>(0)

    func startedLoad() { loads.wrappingAdd(1, ordering: .relaxed) }
    func retried() { retries.wrappingAdd(1, ordering: .relaxed) }

    /// Upstream attempts this request caused: three per load it started, plus its retries.
    var upstreamAttempts: Int {
        loads.load(ordering: .relaxed) * 3 + retries.load(ordering: .relaxed)
    }
}
