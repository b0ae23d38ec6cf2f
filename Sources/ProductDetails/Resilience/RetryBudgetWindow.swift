/// The pure bookkeeping of a retry budget: requests and retries counted in a sliding window.
///
/// A retry is allowed while `retries + 1 ≤ ratio × requests + floor` over the window: the floor
/// lets a quiet service retry at all, the ratio keeps an outage from multiplying traffic. The
/// hedge budget is the same rule with hedges for retries.
package struct RetryBudgetWindow: Sendable, Equatable {
    package struct Limits: Sendable, Equatable {
        package var window: Duration
        package var bucketCount: Int
        package var ratio: Double
        package var floor: Int

        package init(window: Duration = .seconds(10), bucketCount: Int = 10, ratio: Double = 0.2, floor: Int = 10) {
            self.window = window
            self.bucketCount = max(1, bucketCount)
            self.ratio = ratio
            self.floor = floor
        }
    }

    struct Counts: WindowCounts {
        var requests = 0
        var retries = 0

        mutating func add(_ other: Counts) {
            requests += other.requests
            retries += other.retries
        }
    }

    package let limits: Limits
    private var counts: SlidingCounts<Counts>

    package init(limits: Limits = Limits()) {
        self.limits = limits
        self.counts = SlidingCounts(window: limits.window, bucketCount: limits.bucketCount)
    }

    /// Counts a first attempt (a request) at `now`.
    package mutating func recordRequest(at now: Duration) {
        counts.add(at: now) { $0.requests += 1 }
    }

    /// Takes one retry from the budget at `now` if the window allows it.
    package mutating func tryWithdrawRetry(at now: Duration) -> Bool {
        let totals = self.totals(at: now)
        let allowance = limits.ratio * Double(totals.requests) + Double(limits.floor)
        guard Double(totals.retries + 1) <= allowance else { return false }
        counts.add(at: now) { $0.retries += 1 }
        return true
    }

    /// Requests and retries counted in the window ending at `now`.
    package func totals(at now: Duration) -> (requests: Int, retries: Int) {
        let total = counts.total(at: now)
        return (total.requests, total.retries)
    }
}
