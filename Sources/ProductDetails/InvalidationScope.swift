/// What an invalidation reaches: one product, or every page. The one name for it in the
/// service's methods, the shared cache's store and message, and the metrics.
package enum InvalidationScope: Sendable, Hashable {
    case product(String)
    case everything

    /// The `scope` label of the invalidation metrics (`product`, `all`).
    package var label: String {
        switch self {
        case .product: "product"
        case .everything: "all"
        }
    }
}
