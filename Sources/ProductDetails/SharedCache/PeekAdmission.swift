/// The breaker's leave for a peek made without a task (``SharedCache/admitPeek(deadline:)``).
struct PeekAdmission: Sendable {
    /// The call had under half a Redis budget: a timeout then says nothing about Redis.
    let cutShort: Bool
}
