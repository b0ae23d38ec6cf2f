/// Values by a key that takes a handful of values (a metric label's, an upstream): found by
/// comparing the few keys in turn, which costs less on a hot path than the hashing a dictionary
/// does for every look-up. Put the keys looked up most often first.
///
/// `@inlinable`, so that its users in other modules (the service's and the shared cache's metrics)
/// get it specialized for their keys rather than a generic call per look-up.
@usableFromInline
package struct SmallTable<Key: Equatable & Sendable, Value: Sendable>: Sendable {
    @usableFromInline
    let entries: [(key: Key, value: Value)]

    @inlinable
    package init(_ entries: [(Key, Value)]) {
        self.entries = entries.map { (key: $0.0, value: $0.1) }
    }

    @inlinable
    package subscript(key: Key) -> Value? {
        for entry in entries where entry.key == key { return entry.value }
        return nil
    }
}
