import Locking
import ProductDetails
import Synchronization

/// What the domain did for one request, gathered for its log line: the server carries it as the
/// request context's attachment from the responder to the deferred work and the answer observer
/// (`context.record`, typed: ``ProductContext``), and the domain tells it of the upstream work of
/// the loads the request starts (``LoadObserver``); a request that joined another's load records
/// no upstream work of its own.
final class RequestRecord: LoadObserver {
    /// The id the request is known by upstream, in its answer and in its log line.
    let requestID: String
    /// Its W3C trace: the client's, or one started for it.
    let trace: TraceContext
    /// The trace of the load this request joined, when another request had started it.
    private let joinedTrace = Locked<String?>(nil)

    init(requestID: String, trace: TraceContext) {
        self.requestID = requestID
        self.trace = trace
    }

    func joinedLoad(of answer: DetailAnswer) {
        guard let traceID = answer.loadTraceID else { return }
        joinedTrace.withLock { $0 = traceID }
    }

    /// The trace of the load this request joined, when another request had started it.
    var loadTraceID: String? { joinedTrace.withLock { $0 } }

    /// Why the request failed, for its log line: the upstream and cause behind a 5xx.
    private let failure = Locked<(upstream: Upstream?, cause: String)?>(nil)
    private let loads = Atomic<Int>(0)
    private let retries = Atomic<Int>(0)
    /// 0 none, 1 hit, 2 miss, 3 stale: how the cache answered, for the log line.
    private let cache = Atomic<Int>(0)
    /// 0 none, else 1 + the index of the `OmissionReason` the page was answered without waiting for.
    private let withoutWaiting = Atomic<Int>(0)

    func answered(from outcome: CacheOutcome) {
        let code = switch outcome.result {
        case .hit: 1
        case .miss: 2
        case .stale: 3
        }
        cache.store(code, ordering: .relaxed)
        if let reason = outcome.withoutWaiting, let index = OmissionReason.allCases.firstIndex(of: reason) {
            withoutWaiting.store(index + 1, ordering: .relaxed)
        }
    }

    /// The `Cache-Status` detail of a page answered without waiting for a part (`grace-ended`,
    /// `breaker-open`), for the log line's `cacheDetail`.
    var cacheDetail: String? {
        let code = withoutWaiting.load(ordering: .relaxed)
        return code == 0 ? nil : OmissionReason.allCases[code - 1].cacheStatusDetail
    }

    /// "hit", "miss", "stale", or "none" for routes without a cache.
    var cacheResult: String {
        switch cache.load(ordering: .relaxed) {
        case 1: "hit"
        case 2: "miss"
        case 3: "stale"
        default: "none"
        }
    }

    func failed(_ error: ProductDetailsError) {
        guard let cause = error.cause else { return }
        failure.withLock { $0 = (error.upstream, cause) }
    }

    /// `cause` and `upstream` fields for the log line, when the request failed for a known reason.
    var failureFields: [(String, String)] {
        guard let failure = failure.withLock({ $0 }) else { return [] }
        return [("cause", failure.cause)] + (failure.upstream.map { [("upstream", $0.rawValue)] } ?? [])
    }

    func loadStarted() { loads.wrappingAdd(1, ordering: .relaxed) }
    func retried() { retries.wrappingAdd(1, ordering: .relaxed) }
    func loadShed() { loads.wrappingSubtract(1, ordering: .relaxed) }

    /// Upstream attempts this request caused: three per load it started and that was let through
    /// to the upstreams, plus its retries.
    var upstreamAttempts: Int {
        loads.load(ordering: .relaxed) * 3 + retries.load(ordering: .relaxed)
    }
}
