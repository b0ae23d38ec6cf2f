/// A finished answer as the cache keeps it: status, ready-to-write body bytes and strong ETag.
///
/// Encoded once per load and served many times, so a hit costs a lookup and a write, not a
/// serialisation. A product 404 is a document too (`application/problem+json`), cached briefly.
///
/// An immutable class, not a struct: a document travels through the cache, the load, the
/// answer and the response, and each copy of a struct of six references retained each of them;
/// a copy of this is one retain.
package final class CachedDocument: Sendable, Equatable {
    /// 200 (detail JSON) or 404 (problem+json).
    package let status: Int
    /// A slice: a page read from the shared cache keeps the reply's one buffer, body and gzip
    /// member both, rather than a copy of each.
    package let body: ArraySlice<UInt8>
    /// Strong and quoted, from the body's XXH64 (``EntityTag/strong(for:)``).
    package let etag: String
    /// Parts left out because their upstream failed; such a document is cached only briefly.
    package let missing: [DetailPart]
    /// The ids of the products the page shows, its own first, then each suggested one (valid ids
    /// only, once each). Invalidating any of them makes the page unservable, and a CDN in front
    /// purges by them (`SURROGATE_KEY_HEADER`). Empty for a 404 document.
    package let shownProducts: [String]
    /// The body gzipped, made once when the page is stored into this replica's cache
    /// (``ProductDetailsService`` with a ``PageCompressor``); nil for a page below
    /// `gzipMinBytes`, one that gzip would not shrink, or one not stored. The shared cache keeps
    /// it beside the identity body, so a replica that reads the page compresses nothing.
    package let gzip: GzipVariant?

    /// `gzip`: the body as one gzip member, when it has that variant already (read from the
    /// shared cache).
    package convenience init(
        status: Int, body: [UInt8], missing: [DetailPart] = [], shownProducts: [String] = [], gzip member: [UInt8]? = nil
    ) {
        self.init(status: status, body: body[...], missing: missing, shownProducts: shownProducts, gzip: member?[...])
    }

    package convenience init(
        status: Int, body: ArraySlice<UInt8>, missing: [DetailPart] = [], shownProducts: [String] = [], gzip member: ArraySlice<UInt8>?
    ) {
        let etag = EntityTag.strong(for: body)
        self.init(
            status: status, body: body, etag: etag, missing: missing, shownProducts: shownProducts,
            gzip: member.map { GzipVariant(body: $0, identityETag: etag) })
    }

    private init(status: Int, body: ArraySlice<UInt8>, etag: String, missing: [DetailPart], shownProducts: [String], gzip: GzipVariant?) {
        self.status = status
        self.body = body
        self.etag = etag
        self.missing = missing
        self.shownProducts = shownProducts
        self.gzip = gzip
    }

    /// This document with `member` as its gzip variant.
    package func withGzip(_ member: [UInt8]) -> CachedDocument {
        CachedDocument(
            status: status, body: body, etag: etag, missing: missing, shownProducts: shownProducts,
            gzip: GzipVariant(body: member[...], identityETag: etag))
    }

    package static func == (lhs: CachedDocument, rhs: CachedDocument) -> Bool {
        lhs === rhs || (lhs.status == rhs.status && lhs.etag == rhs.etag && lhs.body == rhs.body && lhs.missing == rhs.missing
            && lhs.shownProducts == rhs.shownProducts && lhs.gzip == rhs.gzip)
    }

    /// The products other than its own whose invalidation reaches this page.
    package var dependencies: ArraySlice<String> {
        shownProducts.dropFirst()
    }

    /// The bytes this document holds in the cache (both bodies, their tags, the ids it shows and
    /// a fixed overhead; a page read from the shared cache also keeps its value's generation and
    /// header line, some hundred bytes, in the buffer its bodies share).
    package var cacheCost: Int {
        let variant = gzip.map { $0.body.count + $0.etag.utf8.count } ?? 0
        return body.count + etag.utf8.count + variant + 64 + shownProducts.reduce(0) { $0 + $1.utf8.count + 16 }
    }
}

/// A cached page's body as one gzip member, with the entity tag of that representation.
///
/// A compressed body is another representation of the page: it must not share the identity
/// body's strong tag (RFC 9110 §8.8.3), or a client's `If-None-Match` could match across them.
/// The tag is derived from the identity one, not hashed from these bytes, so every replica gives
/// the same variant the same tag whatever its compressor produced.
package struct GzipVariant: Sendable, Equatable {
    package let body: ArraySlice<UInt8>
    /// The identity tag with `-gz` before its closing quote: `"<10 characters>-gz"`.
    package let etag: String

    package init(body: ArraySlice<UInt8>, identityETag: String) {
        self.body = body
        self.etag = EntityTag.gzipVariant(of: identityETag)
    }
}
