/// Bucket boundaries that suit common measurements, so call sites do not invent their own.
package enum DefaultBuckets {
    /// Request and upstream latencies in seconds, from half a millisecond to ten seconds:
    /// fine near the fast path, coarse in the tail where only the order of magnitude matters.
    package static let latencySeconds: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]
}
