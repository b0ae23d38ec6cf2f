/// The latencies of an upstream's last successful attempts and their 95th percentile, as a pure
/// value: the hedge delay's measure of "slower than usual".
///
/// A ring of the last `capacity` successes (constant memory); the percentile is recomputed every
/// `recomputeEvery` new samples rather than on each read, so a load pays a sort of the ring only
/// once in that many calls. Attempts that timed out or lost a hedge race are censored (never
/// recorded): counting a hedged call's slow first attempt would raise the delay that hedged it.
package struct LatencyWindow: Sendable {
    package let capacity: Int
    private var samples: [Int64] = []
    /// The samples sorted at the last recomputation: kept so that sorting allocates nothing.
    private var sorted: [Int64] = []
    private var next = 0
    private var sinceRecompute = 0
    private var cachedP95: Int64?
    private let recomputeEvery: Int

    package init(capacity: Int = 128, recomputeEvery: Int = 8) {
        self.capacity = max(1, capacity)
        self.recomputeEvery = max(1, recomputeEvery)
        samples.reserveCapacity(self.capacity)
        sorted.reserveCapacity(self.capacity)
    }

    package var count: Int { samples.count }

    package mutating func record(_ latency: Duration) {
        let nanoseconds = max(0, latency.wholeNanoseconds)
        if samples.count < capacity {
            samples.append(nanoseconds)
        } else {
            samples[next] = nanoseconds
        }
        next = (next + 1) % capacity
        sinceRecompute += 1
        if cachedP95 == nil || sinceRecompute >= recomputeEvery { recompute() }
    }

    /// The 95th percentile (nearest rank) of the samples held, as of the last recomputation;
    /// `nil` before the first sample.
    package var p95: Duration? {
        cachedP95.map { .nanoseconds($0) }
    }

    private mutating func recompute() {
        sinceRecompute = 0
        guard !samples.isEmpty else { return }
        sorted.removeAll(keepingCapacity: true)
        sorted.append(contentsOf: samples)
        sorted.sort()
        let rank = (95 * sorted.count + 99) / 100
        cachedP95 = sorted[max(0, rank - 1)]
    }
}
