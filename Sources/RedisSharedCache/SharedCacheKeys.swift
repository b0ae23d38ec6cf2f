import ProductDetails

/// Where the fleet keeps things in Redis, under one versioned prefix.
///
/// The prefix (`pd:v2:` by default) names the value format: a release that changes the format
/// changes the prefix, so a rolling upgrade or a Redis shared with other services never reads a
/// foreign value. Pages and leases carry the epoch and the product's generation in their keys,
/// so invalidating is changing a token, never scanning or deleting.
package struct SharedCacheKeys: Sendable, Equatable {
    package let prefix: String

    package init(prefix: String) {
        self.prefix = prefix
    }

    /// The fleet's epoch token, changed by `DELETE /cache`.
    package var epoch: String { prefix + "epoch" }

    /// `id`'s generation token, changed by `DELETE /cache/products/{id}`.
    package func generation(of id: String) -> String { prefix + "gen:" + id }

    package func page(of id: String, at generation: SharedGeneration) -> String {
        prefix + "page:" + generation.suffix(for: id)
    }

    package func lease(of id: String, at generation: SharedGeneration) -> String {
        prefix + "lease:" + generation.suffix(for: id)
    }

    /// The pub/sub channel invalidations are published on.
    package var invalidationChannel: String { prefix + "invalidations" }

    /// The last invalidation's sequence; one hash slot with ``invalidationLog``.
    package var invalidationSequence: String { prefix + "{invalidations}:sequence" }

    /// The fleet's recent invalidations, `<sequence> <id>` (or `*`: everything), oldest first.
    package var invalidationLog: String { prefix + "{invalidations}:log" }
}

extension SharedGeneration {
    /// `epoch:generation:id`, the same text the read script builds.
    func suffix(for id: String) -> String {
        epoch + ":" + generation + ":" + id
    }
}
