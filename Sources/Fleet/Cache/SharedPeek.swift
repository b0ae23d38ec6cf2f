import ProductDetails
/// What a look at the shared cache without taking a lease found (``SharedCache/peek(id:deadline:)``).
enum SharedPeek: Sendable {
    /// The page (fresh, stale, or one that may not be served), or that another replica loads it.
    case found(SharedRead)
    /// Neither page nor lease is known this way: the read that takes the lease must follow.
    case unknown
    /// The call failed, or the breaker refused it.
    case failed
}
