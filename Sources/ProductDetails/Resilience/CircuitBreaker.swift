/// When to stop asking a dependency that keeps failing, as a pure value stepped with `now`.
///
/// Closed: every call goes through; `failureThreshold` failures in a row open it, and so does,
/// when a ``Policy/failureRatio`` is set, a share of failures at least that high among at least
/// ``Policy/minimumCalls`` calls in the last ``Policy/window``. Open: nothing goes through for
/// `openFor`. Then half-open: one call, the probe, goes through; its success closes the breaker,
/// its failure opens it again. So a dead dependency costs each request nothing once the breaker
/// is open, and one request every `openFor` finds out it is back.
///
/// Redis's breaker uses the consecutive rule alone; each upstream's uses both (a dependency that
/// fails every other call never fails five times in a row, yet is half broken).
package struct CircuitBreaker: Sendable, Equatable {
    package struct Policy: Sendable, Equatable {
        package var failureThreshold: Int
        package var openFor: Duration
        /// The share of failed calls (0…1] that opens the breaker; `nil` for the consecutive rule alone.
        package var failureRatio: Double?
        package var window: Duration
        package var minimumCalls: Int

        package init(
            failureThreshold: Int, openFor: Duration, failureRatio: Double? = nil,
            window: Duration = .seconds(10), minimumCalls: Int = 20
        ) {
            self.failureThreshold = max(1, failureThreshold)
            self.openFor = openFor
            self.failureRatio = failureRatio
            self.window = window
            self.minimumCalls = max(1, minimumCalls)
        }
    }

    struct Counts: WindowCounts {
        var calls = 0
        var failures = 0

        mutating func add(_ other: Counts) {
            calls += other.calls
            failures += other.failures
        }
    }

    package enum State: Sendable, Equatable {
        case closed
        case open
        case halfOpen

        /// The gauge value: 0 closed, 1 open, 2 half-open.
        package var gaugeValue: Int {
            switch self {
            case .closed: 0
            case .open: 1
            case .halfOpen: 2
            }
        }

        package var label: String {
            switch self {
            case .closed: "closed"
            case .open: "open"
            case .halfOpen: "half_open"
            }
        }
    }

    package let policy: Policy
    package private(set) var state = State.closed
    private var failuresInARow = 0
    private var openUntil = Duration.zero
    private var probeOutstanding = false
    /// Calls and failures while closed, for the ratio rule.
    private var recent: SlidingCounts<Counts>

    package init(policy: Policy) {
        self.policy = policy
        self.recent = SlidingCounts(window: policy.window, bucketCount: 10)
    }

    /// The consecutive rule alone.
    package init(failureThreshold: Int, openFor: Duration) {
        self.init(policy: Policy(failureThreshold: failureThreshold, openFor: openFor))
    }

    package var failureThreshold: Int { policy.failureThreshold }
    package var openFor: Duration { policy.openFor }

    /// How long until an open breaker lets its probe through (zero once it may); `nil` when closed.
    /// Half-open counts as open for everyone but the probe, whose answer is not yet known.
    package func remainingOpenTime(now: Duration) -> Duration? {
        switch state {
        case .closed: nil
        case .open: max(.zero, openUntil - now)
        case .halfOpen: .zero
        }
    }

    /// Whether a call may go out now. In half-open, `true` means the caller is the probe and
    /// must report its outcome.
    package mutating func admit(now: @autoclosure () -> Duration) -> (admitted: Bool, changedTo: State?) {
        switch state {
        case .closed:
            return (true, nil)
        case .open:
            guard now() >= openUntil else { return (false, nil) }
            state = .halfOpen
            probeOutstanding = true
            return (true, .halfOpen)
        case .halfOpen:
            guard !probeOutstanding else { return (false, nil) }
            probeOutstanding = true
            return (true, nil)
        }
    }

    /// Reports an admitted call's outcome; returns the new state when it changed. `now` is read
    /// only where the time matters: a closed breaker without a ratio needs none for a success.
    package mutating func record(success: Bool, now: @autoclosure () -> Duration) -> State? {
        if success {
            failuresInARow = 0
            switch state {
            case .closed:
                if policy.failureRatio != nil { recent.add(at: now()) { $0.calls += 1 } }
                return nil
            case .open:
                // A call admitted before the breaker opened answered late: only the probe's
                // answer may close it, or calls in flight at the moment it opened would close it
                // again at once.
                return nil
            case .halfOpen:
                probeOutstanding = false
                state = .closed
                recent.reset()
                return .closed
            }
        }
        switch state {
        case .closed:
            let now = now()
            failuresInARow += 1
            guard failuresInARow < policy.failureThreshold else { return open(now: now) }
            guard let ratio = policy.failureRatio else { return nil }
            recent.add(at: now) {
                $0.calls += 1
                $0.failures += 1
            }
            let total = recent.total(at: now)
            guard total.calls >= policy.minimumCalls, Double(total.failures) >= ratio * Double(total.calls) else { return nil }
            return open(now: now)
        case .halfOpen:
            return open(now: now())
        case .open:
            // A call admitted before the breaker opened failed late: it is already open.
            return nil
        }
    }

    /// An admitted call ended without telling anything about the dependency (its caller was
    /// cancelled): a half-open breaker lets the next call probe instead.
    package mutating func abandonProbe() {
        probeOutstanding = false
    }

    private mutating func open(now: Duration) -> State {
        state = .open
        recent.reset()
        openUntil = now + policy.openFor
        probeOutstanding = false
        failuresInARow = 0
        return .open
    }
}
