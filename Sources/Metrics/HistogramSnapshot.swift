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
