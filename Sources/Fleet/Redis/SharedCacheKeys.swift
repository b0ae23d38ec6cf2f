import ProductDetails
import RESP

/// Where the fleet keeps things in Redis, under one versioned prefix.
///
/// The prefix (`pd:v6:` by default) names the value format: a release that changes the format
/// changes the prefix, so a rolling upgrade or a Redis shared with other services never reads a
/// foreign value. It holds no `{` or `}`: the keys' hash tags are the cache's own.
///
/// Every key of one product carries the product's id as its hash tag, so on a Redis Cluster they
/// live in one slot and one script may touch them all; a single Redis ignores the braces. The
/// page and the lease are one key each per product, their values led by the generation token they
/// were stored under: invalidating a product is changing its token and deleting those two keys,
/// never scanning.
package struct SharedCacheKeys: Sendable, Equatable {
    package let prefix: String
    /// `<prefix>{`, what every product key starts with, as bytes: the hot read writes its keys
    /// from it without making their strings.
    private let productKeyHead: [UInt8]

    package init(prefix: String) {
        self.prefix = prefix
        productKeyHead = Array((prefix + "{").utf8)
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

    /// The key as a string, for every command but the hot read (``appendKey(_:of:to:)``).
    private func productKey(_ id: String, _ name: ProductKey) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(keyLength(id, name))
        appendKeyBytes(name, of: id, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `id`'s key `name` as one argument of a command written straight into `buffer`: the same
    /// bytes as its string, without making it.
    func appendKey(_ name: ProductKey, of id: String, to buffer: inout [UInt8]) {
        RESPCommand.appendArgument(length: keyLength(id, name), to: &buffer) { appendKeyBytes(name, of: id, to: &$0) }
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
        productKeyHead.count + id.utf8.count + name.tail.utf8CodeUnitCount
    }

    /// The one layout of a product's keys: `<prefix>{<id>}:<name>`. Appended from views of the
    /// parts' bytes: appending an array or a string as such retains it for the call.
    private func appendKeyBytes(_ name: ProductKey, of id: String, to bytes: inout [UInt8]) {
        productKeyHead.withUnsafeBufferPointer { bytes.append(contentsOf: $0) }
        if id.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
            bytes.append(contentsOf: id.utf8)
        }
        name.tail.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// The keys each product has.
    enum ProductKey {
        case generation, page, lease

        /// What follows the id: `}:` and the key's name.
        var tail: StaticString {
            switch self {
            case .generation: "}:gen"
            case .page: "}:page"
            case .lease: "}:lease"
            }
        }
    }
}
