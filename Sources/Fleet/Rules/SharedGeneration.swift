import ProductDetails
/// The token a product's shared page and lease are stored under, changed by invalidating the
/// product. Random, never counted, so a token lost to eviction or a restart reads as a new one,
/// and nothing stored under the old one can come back.
///
/// Invalidating everything changes no token: every replica knows of it from the fleet's
/// invalidation log and refuses pages stamped before it (``SharedInvalidationLog``), so no read
/// touches a key outside its product's own.
package struct SharedGeneration: Sendable, Hashable {
    package let token: String

    package init(_ token: String) {
        self.token = token
    }
}
