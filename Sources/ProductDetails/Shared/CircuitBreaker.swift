/// When to stop asking a dependency that keeps failing, as a pure value stepped with `now`.
///
/// Closed: every call goes through, and `failureThreshold` failures in a row open it. Open:
/// nothing goes through for `openFor`. Then half-open: one call, the probe, goes through; its
/// success closes the breaker, its failure opens it again. So a dead Redis costs each request
/// nothing once the breaker is open, and one request every `openFor` finds out it is back.
public struct CircuitBreaker: Sendable, Equatable {
    public enum State: Sendable, Equatable {
        case closed
        case open
        case halfOpen

        /// The gauge value: 0 closed, 1 open, 2 half-open.
        public var gaugeValue: Int {
            switch self {
            case .closed: 0
            case .open: 1
            case .halfOpen: 2
            }
        }

        public var label: String {
            switch self {
            case .closed: "closed"
            case .open: "open"
            case .halfOpen: "half_open"
            }
        }
    }

    public let failureThreshold: Int
    public let openFor: Duration
    public private(set) var state = State.closed
    private var failuresInARow = 0
    private var openUntil = Duration.zero
    private var probeOutstanding = false

    public init(failureThreshold: Int, openFor: Duration) {
        self.failureThreshold = max(1, failureThreshold)
        self.openFor = openFor
    }

    /// Whether a call may go out now. In half-open, `true` means the caller is the probe and
    /// must report its outcome.
    public mutating func admit(now: Duration) -> (admitted: Bool, changedTo: State?) {
        switch state {
        case .closed:
            return (true, nil)
        case .open:
            guard now >= openUntil else { return (false, nil) }
            state = .halfOpen
            probeOutstanding = true
            return (true, .halfOpen)
        case .halfOpen:
            guard !probeOutstanding else { return (false, nil) }
            probeOutstanding = true
            return (true, nil)
        }
    }

    /// Reports an admitted call's outcome; returns the new state when it changed.
    public mutating func record(success: Bool, now: Duration) -> State? {
        if success {
            failuresInARow = 0
            probeOutstanding = false
            guard state != .closed else { return nil }
            state = .closed
            return .closed
        }
        switch state {
        case .closed:
            failuresInARow += 1
            guard failuresInARow >= failureThreshold else { return nil }
            return open(now: now)
        case .halfOpen:
            return open(now: now)
        case .open:
            // A call admitted before the breaker opened failed late: it is already open.
            return nil
        }
    }

    /// An admitted call ended without telling anything about the dependency (its caller was
    /// cancelled): a half-open breaker lets the next call probe instead.
    public mutating func abandonProbe() {
        probeOutstanding = false
    }

    private mutating func open(now: Duration) -> State {
        state = .open
        openUntil = now + openFor
        probeOutstanding = false
        failuresInARow = 0
        return .open
    }
}
