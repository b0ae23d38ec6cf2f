import ProductDetails
/// The breaker's leave for one call to the store (``SharedCache/admit(deadline:)``).
struct StoreAdmission: Sendable {
    /// The call had under half a Redis budget: a timeout then says nothing about Redis.
    let cutShort: Bool
}
