/// The state of a ``Histogram`` at one moment, in the cumulative form Prometheus exposes.
public struct HistogramSnapshot: Sendable, Equatable {
    /// One bucket: how many observations were at most `upperBound`.
    public struct Bucket: Sendable, Equatable {
        public let upperBound: Double
        public let cumulativeCount: Int
    }

    /// Every bucket in increasing order, ending with `+Inf`.
    public let buckets: [Bucket]

    /// The sum of all observed values.
    public let sum: Double

    /// The number of observations; always the `+Inf` bucket's count.
    public var count: Int {
        buckets.last?.cumulativeCount ?? 0
    }
}
