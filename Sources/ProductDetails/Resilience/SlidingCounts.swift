import Timekeeping

/// Counts kept over a sliding window of time: a ring of buckets (one per `window / bucketCount`),
/// each reset when the time it covers has slid out of the window, so memory is constant and
/// every operation O(buckets). The retry and hedge budgets count requests and retries with it;
/// an upstream's breaker counts calls and failures.
package struct SlidingCounts<Counts: WindowCounts>: Sendable, Equatable {
    private struct Bucket: Sendable, Equatable {
        var epoch: Int64 = .min
        var counts = Counts()
    }

    private var buckets: [Bucket]
    private let bucketNanoseconds: Int64

    package init(window: Duration, bucketCount: Int) {
        buckets = Array(repeating: Bucket(), count: max(1, bucketCount))
        bucketNanoseconds = max(1, window.wholeNanoseconds / Int64(buckets.count))
    }

    /// Adds to the bucket `now` falls in.
    package mutating func add(at now: Duration, _ change: (inout Counts) -> Void) {
        let current = epoch(of: now)
        let count = Int64(buckets.count)
        let slot = Int(((current % count) + count) % count)
        if buckets[slot].epoch != current {
            buckets[slot] = Bucket(epoch: current)
        }
        change(&buckets[slot].counts)
    }

    /// The sum of the buckets in the window ending at `now`.
    package func total(at now: Duration) -> Counts {
        let current = epoch(of: now)
        let oldest = current - Int64(buckets.count) + 1
        var total = Counts()
        for bucket in buckets where bucket.epoch >= oldest && bucket.epoch <= current {
            total.add(bucket.counts)
        }
        return total
    }

    /// Forgets everything counted so far.
    package mutating func reset() {
        for index in buckets.indices { buckets[index] = Bucket() }
    }

    private func epoch(of now: Duration) -> Int64 {
        let nanos = now.wholeNanoseconds
        return nanos >= 0 ? nanos / bucketNanoseconds : (nanos - bucketNanoseconds + 1) / bucketNanoseconds
    }
}

/// What one bucket of a ``SlidingCounts`` holds: a value that starts at zero and adds up.
package protocol WindowCounts: Sendable, Equatable {
    init()
    mutating func add(_ other: Self)
}
