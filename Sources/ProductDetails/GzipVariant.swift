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
