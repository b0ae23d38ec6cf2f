import ProductDetails
import RESP

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
    package func generation(of id: String) -> String { productKey(id, .generation) }

    /// `<generation> <page>`.
    package func page(of id: String) -> String { productKey(id, .page) }

    /// `<generation> <holder's token>`.
    package func lease(of id: String) -> String { productKey(id, .lease) }

    /// The shard channel invalidations are published on (`SPUBLISH`), in the log's hash slot: on a
    /// cluster the publishing script and every subscriber meet on that slot's master, so the
    /// receivers count is every replica's.
    package var invalidationChannel: String { prefix + "{invalidations}" }

    /// The last invalidation's sequence; one hash slot with ``invalidationLog``.
    package var invalidationSequence: String { prefix + "{invalidations}:sequence" }

    /// The fleet's recent invalidations, `<sequence> <id>` (or `*`: everything), oldest first.
    package var invalidationLog: String { prefix + "{invalidations}:log" }

    /// Built in one allocation; the hot read writes its keys with ``appendKey(_:of:to:)`` instead.
    private func productKey(_ id: String, _ name: ProductKey) -> String {
        var key = ""
        key.reserveCapacity(keyLength(id, name))
        forEachPart(of: id, name) { key += $0 }
        return key
    }

    /// `id`'s key `name` as one argument of a command written straight
    /// into `buffer`: the same bytes as its string, without making it.
    func appendKey(_ name: ProductKey, of id: String, to buffer: inout [UInt8]) {
        RESPCommand.appendArgument(length: keyLength(id, name), to: &buffer) { buffer in
            forEachPart(of: id, name) { buffer.append(contentsOf: $0.utf8) }
        }
    }

    /// What ``appendKey(_:of:to:)`` appends, in bytes.
    func encodedCount(ofKey name: ProductKey, of id: String) -> Int {
        RESPCommand.encodedCount(ofArgument: keyLength(id, name))
    }

    /// A key of `id` hashes to the slot of its hash tag, `{id}`: a routing key for a request
    /// whose keys are all `id`'s, short enough for a string to hold inline.
    func hashTag(of id: String) -> String {
        "{" + id + "}"
    }

    private func keyLength(_ id: String, _ name: ProductKey) -> Int {
        prefix.utf8.count + id.utf8.count + name.rawValue.utf8.count + 3
    }

    /// The one layout of a product's keys: `<prefix>{<id>}:<name>`.
    private func forEachPart(of id: String, _ name: ProductKey, _ part: (String) -> Void) {
        part(prefix)
        part("{")
        part(id)
        part("}:")
        part(name.rawValue)
    }

    /// The keys each product has.
    enum ProductKey: String {
        case generation = "gen"
        case page
        case lease
    }
}
