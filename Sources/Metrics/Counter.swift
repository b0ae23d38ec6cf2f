import Synchronization

/// A monotonically increasing integer, such as requests served.
///
/// Recording is one relaxed atomic add: no lock and no allocation, so it is safe on the hottest
/// path. Obtain counters from ``MetricsRegistry/counter(_:help:labels:)``, which renders the
/// name and labels once; the counter itself holds only the number.
package final class Counter: Sendable {
    private let count = Atomic<Int>(0)

    init() {}

    /// Adds `amount`, which must not be negative: a counter that goes down breaks `rate()`.
    package func increment(by amount: Int = 1) {
        precondition(amount >= 0, "a counter only goes up; use a Gauge for values that fall")
        count.wrappingAdd(amount, ordering: .relaxed)
    }

    /// The current total.
    package var value: Int {
        count.load(ordering: .relaxed)
    }
}
