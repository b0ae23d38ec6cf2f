import ProductDetails
/// What a refresh a client asked for (`no-cache`) got of the product's lease.
enum RefreshClaim: Sendable, Equatable {
    /// This replica loads under it, and shares the page.
    case claimed(SharedClaim)
    /// Another replica loads the product now: this refresh loads alone rather than wait for it.
    case heldElsewhere
    /// The shared cache did not answer (or its breaker is open): the refresh loads alone.
    case unavailable
}
