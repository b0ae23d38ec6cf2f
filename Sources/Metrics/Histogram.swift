import Synchronization
import Timekeeping

/// A distribution of observations, such as request latency, counted into fixed buckets.
///
/// Each bucket keeps its own non-cumulative count, so an observation is a binary search over
/// the bounds plus one atomic add, and the sum is a compare-and-swap on a `Double`: no lock, no
/// allocation. The total count is not stored separately but derived from the buckets at read
/// time, which makes the `+Inf` bucket equal `_count` in every scrape even while observations
/// race with it. (The sum is read after the buckets and may include an observation the buckets
/// do not yet show; Prometheus clients accept that skew.)
package final class Histogram: Sendable {
    /// The finite, strictly increasing upper bounds; the `+Inf` bucket is implicit.
    package let upperBounds: [Double]

    /// One count per bound plus a final overflow count for `+Inf`; non-cumulative.
    private let bucketCounts: [BucketCount]
    private let sum = AtomicDouble()

    init(upperBounds: [Double]) {
        self.upperBounds = upperBounds
        self.bucketCounts = (0...upperBounds.count).map { _ in BucketCount() }
    }

    /// Records `value`. NaN lands in the `+Inf` bucket only, and makes the sum NaN.
    package func observe(_ value: Double) {
        bucketCounts[bucketIndex(for: value)].add()
        sum.add(value)
    }

    /// Records a duration in seconds, the unit Prometheus expects for time.
    package func observe(_ duration: Duration) {
        observe(duration.fractionalSeconds)
    }

    /// A consistent-enough copy of the counts, for tests and diagnostics.
    package func snapshot() -> HistogramSnapshot {
        var cumulative = 0
        var buckets: [HistogramSnapshot.Bucket] = []
        buckets.reserveCapacity(bucketCounts.count)
        for (index, bucket) in bucketCounts.enumerated() {
            cumulative += bucket.value
            let bound = index < upperBounds.count ? upperBounds[index] : .infinity
            buckets.append(.init(upperBound: bound, cumulativeCount: cumulative))
        }
        return HistogramSnapshot(buckets: buckets, sum: sum.load())
    }

    /// Calls `body` once per bucket, `+Inf` last, with its cumulative count; then returns the
    /// sum. Lets the exposition writer read the atomics without building a snapshot.
    func forEachCumulativeCount(_ body: (Int) -> Void) -> Double {
        var cumulative = 0
        for bucket in bucketCounts {
            cumulative += bucket.value
            body(cumulative)
        }
        return sum.load()
    }

    /// The first bucket whose bound is at least `value` (`le` is inclusive), or the overflow.
    private func bucketIndex(for value: Double) -> Int {
        var low = 0
        var high = upperBounds.count
        while low < high {
            let middle = (low + high) / 2
            if value <= upperBounds[middle] {
                high = middle
            } else {
                low = middle + 1
            }
        }
        return low
    }
}

/// One bucket's atomic count. A class because `Atomic` cannot live in an `Array`; the cells
/// are allocated once, when the histogram is registered.
private final class BucketCount: Sendable {
    private let count = Atomic<Int>(0)

    func add() {
        count.wrappingAdd(1, ordering: .relaxed)
    }

    var value: Int {
        count.load(ordering: .relaxed)
    }
}

/// The state of a ``Histogram`` at one moment, in the cumulative form Prometheus exposes.
package struct HistogramSnapshot: Sendable, Equatable {
    /// One bucket: how many observations were at most `upperBound`.
    package struct Bucket: Sendable, Equatable {
        package let upperBound: Double
        package let cumulativeCount: Int
    }

    /// Every bucket in increasing order, ending with `+Inf`.
    package let buckets: [Bucket]

    /// The sum of all observed values.
    package let sum: Double

    /// The number of observations; always the `+Inf` bucket's count.
    package var count: Int {
        buckets.last?.cumulativeCount ?? 0
    }
}

/// Bucket boundaries that suit common measurements, so call sites do not invent their own.
package enum DefaultBuckets {
    /// Request and upstream latencies in seconds, from half a millisecond to ten seconds:
    /// fine near the fast path, coarse in the tail where only the order of magnitude matters.
    package static let latencySeconds: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]
}
