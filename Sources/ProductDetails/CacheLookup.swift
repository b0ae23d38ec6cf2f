/// What ``ResponseCache/lookup(_:)`` found for a key.
package enum CacheLookup<Value: Sendable>: Sendable {
    /// Within its TTL; `remaining` is how much longer it stays fresh.
    case fresh(Value, remaining: Duration)
    /// Past its TTL but still inside a stale window. `age` is how long it has been stale;
    /// `revalidate` means it may be served while one background refresh runs (stale-while-
    /// revalidate); `usableOnError` means it may stand in for a failed load (stale-if-error).
    case stale(Value, age: Duration, revalidate: Bool, usableOnError: Bool)
    case miss
}

extension CacheLookup: Equatable where Value: Equatable {}
