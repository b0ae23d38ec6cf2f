/// A finished answer as the cache keeps it: status, ready-to-write body bytes and strong ETag.
///
/// Encoded once per load and served many times, so a hit costs a lookup and a write, not a
/// serialisation. A product 404 is a document too (`application/problem+json`), cached briefly.
package struct CachedDocument: Sendable, Equatable {
    /// 200 (detail JSON) or 404 (problem+json).
    package let status: Int
    package let body: [UInt8]
    /// Strong and quoted: `"\"<16 hex digits of XXH64 of body>\""`.
    package let etag: String
    /// Parts left out because their upstream failed; such a document is cached only briefly.
    package let missing: [DetailPart]

    package init(status: Int, body: [UInt8], missing: [DetailPart] = []) {
        self.status = status
        self.body = body
        self.etag = EntityTag.strong(for: body)
        self.missing = missing
    }

    /// The bytes this document holds in the cache (body, tag and a fixed overhead).
    var cacheCost: Int {
        body.count + etag.utf8.count + 64
    }
}
