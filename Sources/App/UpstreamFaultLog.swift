import Metrics
import Logging
import Locking
import ProductDetails
import Timekeeping

/// Upstream faults in the log, for operators: a call that failed for good (warn, with its cause),
/// and an upstream going unreachable or coming back (warn; `error` when its host name does not
/// resolve, which only an operator can fix). An outage fails every load, so each kind of line is
/// rate-limited per upstream; the next line written says how many were held back.
final class UpstreamFaultLog: Sendable {
    private let logger: Logger
    private let failureLines: SmallTable<Upstream, LogRateLimiter>
    private let connectivity: SmallTable<Upstream, UpstreamConnectivity>
    private let time: any TimeSource

    init(
        logger: Logger, time: any TimeSource, failureLinesPerSecond: Int = 5, connectivityLinesEvery interval: Duration = .seconds(10)
    ) {
        self.logger = logger
        self.time = time
        failureLines = SmallTable(Upstream.allCases.map { ($0, LogRateLimiter(linesPerSecond: failureLinesPerSecond)) })
        connectivity = SmallTable(Upstream.allCases.map { ($0, UpstreamConnectivity(minimumInterval: interval)) })
    }

    func gaveUp(_ upstream: Upstream, failure: UpstreamFailure, attempts: Int) {
        guard logger.minimum <= .warn, let heldBack = failureLines[upstream]?.admit(now: time.now) else { return }
        var fields = [("upstream", upstream.rawValue), ("cause", failure.cause), ("attempts", String(attempts))]
        if heldBack > 0 { fields.append(("linesHeldBack", String(heldBack))) }
        logger.warn("upstream call failed after retries", fields)
    }

    /// An upstream's breaker opened (`warn`: the upstream is not asked until it closes) or
    /// closed (`info`). Half-open is not a line: the trial's outcome follows at once.
    func breaker(_ upstream: Upstream, changedTo state: CircuitBreaker.State) {
        switch state {
        case .open:
            logger.warn("upstream circuit breaker opened: calls fail at once until a trial call succeeds", [
                ("upstream", upstream.rawValue),
            ])
        case .closed:
            logger.info("upstream circuit breaker closed", [("upstream", upstream.rawValue)])
        case .halfOpen:
            break
        }
    }

    /// Loads started being refused for want of upstream room (`warn`), or none was for a while
    /// (`info`, said when the next event after that quiet comes). The admission reports each
    /// change once, so these lines are as rare as spells of overload.
    func shedding(_ started: Bool) {
        if started {
            logger.warn("shedding load: the upstreams are at their limits, loads beyond them are refused with 503", [])
        } else {
            logger.info("shedding stopped: no load refused for 5 s", [])
        }
    }

    /// One attempt's outcome: `nil` when the upstream answered (even with an error status).
    func attempted(_ upstream: Upstream, failure: UpstreamFailure?) {
        if let failure, !failure.isUnreachable { return }
        guard let change = connectivity[upstream]?.note(unreachableBecause: failure.map(\.cause), now: time.now) else { return }
        var fields = [("upstream", upstream.rawValue)]
        if let cause = change.cause { fields.append(("cause", cause)) }
        if change.changesHeldBack > 0 { fields.append(("changesHeldBack", String(change.changesHeldBack))) }
        if change.reachable {
            logger.warn("upstream reachable again", fields)
        } else if failure == .hostNotFound {
            logger.error("upstream unreachable: its host name does not resolve", fields)
        } else {
            logger.warn("upstream unreachable", fields)
        }
    }
}
