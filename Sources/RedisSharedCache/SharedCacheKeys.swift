import ProductDetails

/// Where the fleet keeps things in Redis, under one versioned prefix.
///
/// The prefix (`pd:v4:` by default) names the value format: a release that changes the format
/// changes the prefix, so a rolling upgrade or a Redis shared with other services never reads a
/// foreign value. It holds no `{` or `}`: the keys' hash tags are the cache's own.
///
/// Every key of one product carries the product's id as its hash tag, so on a Redis Cluster they
/// live in one slot and one script may touch them all; a single Redis ignores the braces. The
/// page and the lease are one key each per product, their values led by the generation token they
/// were stored under: invalidating a product is changing its token, never scanning or deleting.
package struct SharedCacheKeys: Sendable, Equatable {
    package let prefix: String

    package init(prefix: String) {
        self.prefix = prefix
    }

    /// `id`'s generation token, changed by `DELETE /cache/products/{id}`.
    package func generation(of id: String) -> String { productKey(id, "gen") }

    /// `<generation> <page>`.
    package func page(of id: String) -> String { productKey(id, "page") }

    /// `<generation> <holder's token>`.
    package func lease(of id: String) -> String { productKey(id, "lease") }

    /// The shard channel invalidations are published on (`SPUBLISH`), in the log's hash slot: on a
    /// cluster the publishing script and every subscriber meet on that slot's master, so the
    /// receivers count is every replica's.
    package var invalidationChannel: String { prefix + "{invalidations}" }

    /// The last invalidation's sequence; one hash slot with ``invalidationLog``.
    package var invalidationSequence: String { prefix + "{invalidations}:sequence" }

    /// The fleet's recent invalidations, `<sequence> <id>` (or `*`: everything), oldest first.
    package var invalidationLog: String { prefix + "{invalidations}:log" }

    /// Built in one allocation: three of these are made for every shared read.
    private func productKey(_ id: String, _ name: String) -> String {
        var key = ""
        key.reserveCapacity(prefix.utf8.count + id.utf8.count + name.utf8.count + 3)
        key += prefix
        key += "{"
        key += id
        key += "}:"
        key += name
        return key
    }
}
