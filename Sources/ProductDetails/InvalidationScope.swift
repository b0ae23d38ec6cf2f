/// What an invalidation reaches: one product, several at once, or every page. The one name for
/// it in the service's methods, the shared cache's store and message, and the metrics. A product
/// reaches its own page and every page that shows it.
package enum InvalidationScope: Sendable, Hashable {
    case product(String)
    /// A bulk invalidation (`POST /cache/invalidations`): valid ids, each once.
    case products([String])
    case everything

    /// The `scope` label of the invalidation metrics (`product`, `bulk`, `all`).
    package var label: String {
        switch self {
        case .product: "product"
        case .products: "bulk"
        case .everything: "all"
        }
    }

    /// The ids it names (none for everything).
    package var ids: [String] {
        switch self {
        case .product(let id): [id]
        case .products(let ids): ids
        case .everything: []
        }
    }

    /// One of each label, for series that exist from start-up.
    package static let oneOfEachLabel: [InvalidationScope] = [.product(""), .products([]), .everything]
}
