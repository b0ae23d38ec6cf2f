/// A value that goes up and down, such as connections open or bytes buffered.
///
/// The value lives in an ``AtomicDouble``: `set` is one atomic store and `increment`/`decrement`
/// a lock-free compare-and-swap loop, so recording never takes a lock or allocates.
package final class Gauge: Sendable {
    private let storage = AtomicDouble()

    init() {}

    /// Replaces the value.
    package func set(_ value: Double) {
        storage.store(value)
    }

    /// Adds `amount` (default 1).
    package func increment(by amount: Double = 1) {
        storage.add(amount)
    }

    /// Subtracts `amount` (default 1).
    package func decrement(by amount: Double = 1) {
        storage.add(-amount)
    }

    /// The current value.
    package var value: Double {
        storage.load()
    }
}
