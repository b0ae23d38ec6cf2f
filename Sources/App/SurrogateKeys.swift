import HTTP1

/// The header that lets a CDN in front purge by product (`SURROGATE_KEY_HEADER`): Fastly's
/// `Surrogate-Key`, Cloudflare's `Cache-Tag` and Varnish xkey all take a space-separated list of
/// keys. A page lists the ids it shows, its own first, so purging a product at the CDN reaches
/// every page that shows it, as `DELETE /cache/products/{id}` does here.
enum SurrogateKeys {
    /// The longest value sent: ids past it are left out whole (Fastly's limit for the header;
    /// a page shows far fewer ids than that holds).
    static let maxValueBytes = 16 * 1024

    /// A field name (RFC 9110 token) of at most 64 bytes that the service does not already send.
    static func isAllowedHeaderName(_ name: String) -> Bool {
        guard name.utf8.count <= 64, FieldBlock.isFieldName(name) else { return false }
        return !reserved.contains(name.lowercased())
    }

    /// The ids joined by spaces, as many whole ids as fit in ``maxValueBytes``.
    static func value(for ids: [String]) -> String {
        var value = ""
        for id in ids {
            let added = (value.isEmpty ? 0 : 1) + id.utf8.count
            guard value.utf8.count + added <= maxValueBytes else { break }
            if !value.isEmpty { value += " " }
            value += id
        }
        return value
    }

    /// Fields a page answer already carries, or that framing and connection handling own.
    private static let reserved: Set<String> = [
        "cache-control", "cache-status", "connection", "content-length", "content-type", "date", "etag",
        "keep-alive", "retry-after", "server", "traceparent", "transfer-encoding", "upgrade", "x-request-id",
    ]
}
