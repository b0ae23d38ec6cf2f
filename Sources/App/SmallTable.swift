/// Values by a key that takes a handful of values (a metric label's, an upstream): found by
/// comparing the few keys in turn, which costs less on a hot path than the hashing a dictionary
/// does for every look-up. Put the keys looked up most often first.
struct SmallTable<Key: Equatable & Sendable, Value: Sendable>: Sendable {
    private let entries: [(key: Key, value: Value)]

    init(_ entries: [(Key, Value)]) {
        self.entries = entries.map { (key: $0.0, value: $0.1) }
    }

    subscript(key: Key) -> Value? {
        for entry in entries where entry.key == key { return entry.value }
        return nil
    }
}
