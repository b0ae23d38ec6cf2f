import Locking

/// Whether one upstream answers, as its calls find it, and which changes are worth a log line: a
/// change is reported at most once per `minimumInterval`; flapping in between is counted, and a
/// change whose line was held back is reported with the next line (or when the state differs
/// from the last one reported after the interval). Pure: time comes in as `now` on the
/// application's time line.
final class UpstreamConnectivity: Sendable {
    struct Change: Equatable {
        var reachable: Bool
        var cause: String?
        /// State changes since the last line that had no line of their own.
        var changesHeldBack: Int
    }

    private let minimumInterval: Duration
    private let state = Locked(State())

    private struct State {
        /// As last reported in a line: an upstream starts out reachable, and says nothing.
        var reportedReachable = true
        var reachable = true
        var lastReport: Duration?
        var changesHeldBack = 0
    }

    init(minimumInterval: Duration) {
        self.minimumInterval = minimumInterval
    }

    /// Notes one call's outcome (`nil` when the upstream answered); returns the change to log, if any.
    func note(unreachableBecause cause: String?, now: @autoclosure () -> Duration) -> Change? {
        state.withLock { state in
            let reachable = cause == nil
            if reachable != state.reachable {
                state.reachable = reachable
                state.changesHeldBack += 1
            }
            guard reachable != state.reportedReachable else { return nil }
            let now = now()
            if let last = state.lastReport, now - last < minimumInterval { return nil }
            state.reportedReachable = reachable
            state.lastReport = now
            let change = Change(reachable: reachable, cause: cause, changesHeldBack: state.changesHeldBack - 1)
            state.changesHeldBack = 0
            return change
        }
    }
}
