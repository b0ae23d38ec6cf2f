import Metrics

/// A metric's counters by the value of a label that takes a handful of values (a result, a
/// reason): found by comparing the few keys in turn, which costs less on a hot path than the
/// hashing a dictionary does for every increment.
struct CounterTable<Key: Equatable & Sendable>: Sendable {
    private let entries: [(key: Key, counter: Counter)]

    init(_ entries: [(Key, Counter)]) {
        self.entries = entries.map { (key: $0.0, counter: $0.1) }
    }

    subscript(key: Key) -> Counter? {
        for entry in entries where entry.key == key { return entry.counter }
        return nil
    }
}
