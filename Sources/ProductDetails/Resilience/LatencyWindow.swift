/// The latencies of an upstream's last successful attempts and their 95th percentile, as a pure
/// value: the hedge delay's measure of "slower than usual".
///
/// A ring of the last `capacity` successes (constant memory); the percentile is recomputed every
/// `recomputeEvery` new samples rather than on each read, so a load pays a selection over the
/// ring only once in that many calls. Attempts that timed out or lost a hedge race are censored (never
/// recorded): counting a hedged call's slow first attempt would raise the delay that hedged it.
package struct LatencyWindow: Sendable {
    package let capacity: Int
    private var samples: [Int64] = []
    /// Scratch for the selection: kept so that a recomputation allocates nothing.
    private var scratch: [Int64] = []
    private var next = 0
    private var sinceRecompute = 0
    private var cachedP95: Int64?
    private let recomputeEvery: Int

    package init(capacity: Int = 128, recomputeEvery: Int = 8) {
        self.capacity = max(1, capacity)
        self.recomputeEvery = max(1, recomputeEvery)
        samples.reserveCapacity(self.capacity)
        scratch.reserveCapacity(self.capacity)
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
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: samples)
        let rank = (95 * scratch.count + 99) / 100
        cachedP95 = scratch.withUnsafeMutableBufferPointer { Self.select(max(0, rank - 1), in: $0) }
    }

    /// The `k`-th smallest element (from 0), by Hoare's selection in place: the standard library's
    /// sort allocates a merge buffer, and only one rank is wanted.
    private static func select(_ k: Int, in values: UnsafeMutableBufferPointer<Int64>) -> Int64 {
        var low = 0
        var high = values.count - 1
        while low < high {
            let pivot = values[low + (high - low) / 2]
            var i = low
            var j = high
            while i <= j {
                while values[i] < pivot { i += 1 }
                while values[j] > pivot { j -= 1 }
                if i <= j {
                    values.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            // [low, j] holds values <= pivot, [i, high] values >= pivot, and anything between equals it.
            if k <= j {
                high = j
            } else if k >= i {
                low = i
            } else {
                return values[k]
            }
        }
        return values[k]
    }
}
