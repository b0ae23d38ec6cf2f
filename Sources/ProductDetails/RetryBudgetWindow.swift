/// The pure bookkeeping of a retry budget: requests and retries counted in a sliding window.
///
/// The window is a ring of buckets (one per `window / bucketCount`); a bucket is reset when the
/// time it covers has slid out of the window, so memory is constant and every operation O(buckets).
/// A retry is allowed while `retries + 1 ≤ ratio × requests + floor` over the window: the floor
/// lets a quiet service retry at all, the ratio keeps an outage from multiplying traffic.
public struct RetryBudgetWindow: Sendable, Equatable {
    public struct Limits: Sendable, Equatable {
        public var window: Duration
        public var bucketCount: Int
        public var ratio: Double
        public var floor: Int

        public init(window: Duration = .seconds(10), bucketCount: Int = 10, ratio: Double = 0.2, floor: Int = 10) {
            self.window = window
            self.bucketCount = max(1, bucketCount)
            self.ratio = ratio
            self.floor = floor
        }
    }

    private struct Bucket: Sendable, Equatable {
        var epoch: Int64 = .min
        var requests = 0
        var retries = 0
    }

    public let limits: Limits
    private var buckets: [Bucket]
    private let bucketNanoseconds: Int64

    public init(limits: Limits = Limits()) {
        self.limits = limits
        self.buckets = Array(repeating: Bucket(), count: limits.bucketCount)
        let windowNanoseconds = Self.nanoseconds(limits.window)
        self.bucketNanoseconds = max(1, windowNanoseconds / Int64(limits.bucketCount))
    }

    /// Counts a first attempt (a request) at `now`.
    public mutating func recordRequest(at now: Duration) {
        let slot = advance(to: now)
        buckets[slot].requests += 1
    }

    /// Takes one retry from the budget at `now` if the window allows it.
    public mutating func tryWithdrawRetry(at now: Duration) -> Bool {
        let slot = advance(to: now)
        let totals = self.totals(at: now)
        let allowance = limits.ratio * Double(totals.requests) + Double(limits.floor)
        guard Double(totals.retries + 1) <= allowance else { return false }
        buckets[slot].retries += 1
        return true
    }

    /// Requests and retries counted in the window ending at `now`.
    public func totals(at now: Duration) -> (requests: Int, retries: Int) {
        let current = epoch(of: now)
        let oldest = current - Int64(buckets.count) + 1
        var requests = 0
        var retries = 0
        for bucket in buckets where bucket.epoch >= oldest && bucket.epoch <= current {
            requests += bucket.requests
            retries += bucket.retries
        }
        return (requests, retries)
    }

    /// Returns the slot for `now`, resetting it if it still holds an older bucket's counts.
    private mutating func advance(to now: Duration) -> Int {
        let current = epoch(of: now)
        let count = Int64(buckets.count)
        let slot = Int(((current % count) + count) % count)
        if buckets[slot].epoch != current {
            buckets[slot] = Bucket(epoch: current)
        }
        return slot
    }

    private func epoch(of now: Duration) -> Int64 {
        let nanos = Self.nanoseconds(now)
        return nanos >= 0 ? nanos / bucketNanoseconds : (nanos - bucketNanoseconds + 1) / bucketNanoseconds
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let parts = duration.components
        return parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000
    }
}
