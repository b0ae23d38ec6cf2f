import Fleet
import Locking
import ProductDetails

/// Records every event the service and the shared cache report, one line each, for assertions.
package final class RecordingEvents: ServiceEvents, SharedCacheEvents {
    private let log = Locked<[String]>([])

    package init() {}

    package var all: [String] { log.withLock { $0 } }

    package func count(_ name: String) -> Int {
        log.withLock { $0.filter { $0 == name }.count }
    }

    private func record(_ line: String) {
        log.withLock { $0.append(line) }
    }

    package func upstreamAttempt(_ upstream: Upstream, failure: UpstreamFailure?, duration: Duration) {
        record("attempt \(upstream.rawValue) \(failure?.label ?? "success")")
    }
    package func upstreamGaveUp(_ upstream: Upstream, failure: UpstreamFailure, attempts: Int) {
        record("gaveUp \(upstream.rawValue) \(failure.label) after \(attempts)")
    }
    package func retry(_ upstream: Upstream, reason: String) { record("retry \(upstream.rawValue) \(reason)") }
    package func retryBudgetExhausted(_ upstream: Upstream) { record("budgetExhausted \(upstream.rawValue)") }
    package func retryShed(_ upstream: Upstream) { record("retryShed \(upstream.rawValue)") }
    package func upstreamBreaker(_ upstream: Upstream, _ state: CircuitBreaker.State) { record("breaker \(upstream.rawValue) \(state.label)") }
    package func hedge(_ upstream: Upstream, _ result: HedgeResult) { record("hedge \(upstream.rawValue) \(result.rawValue)") }

    package func cacheLookup(_ result: CacheResult) { record("cache \(result.rawValue)") }
    package func coalesced() { record("coalesced") }
    package func loadStarted() { record("loadStarted") }
    package func loadFinished() { record("loadFinished") }
    package func upstreamLoadStarted() { record("upstreamLoad") }
    package func loadCancelled() { record("loadCancelled") }
    package func loadRefused() { record("loadRefused") }
    package func eviction(reason: String) { record("eviction \(reason)") }
    package func partOmitted(_ part: DetailPart, _ reason: OmissionReason) { record("omitted \(part.rawValue) \(reason.rawValue)") }
    package func invalidated(_ scope: InvalidationScope) { record("invalidated \(scope.label) \(scope.ids.count)") }
    package func dependentPageDropped() { record("dependentDropped") }

    package func loadAdmitted(waited: Duration) { record("admitted") }
    package func loadShed(_ reason: AdmissionRefusal) { record("shed \(reason.rawValue)") }
    package func shedding(_ started: Bool) { record(started ? "shedding started" : "shedding stopped") }

    package func sharedRead(_ result: SharedReadResult) { record("read \(result.rawValue)") }
    package func lease(_ result: LeaseResult) { record("lease \(result.rawValue)") }
    package func redisBreaker(_ state: CircuitBreaker.State) { record("redis breaker \(state.label)") }
}
