extension ProductDetailsService {
    /// `document` with its gzip variant when it is worth one: at least `gzipMinBytes` of body,
    /// and gzip makes it smaller. Done once per page stored into L1, so a hit never compresses;
    /// with caching off nothing is stored, and nothing compressed.
    package func compressed(_ document: CachedDocument) -> CachedDocument {
        guard let compressor, settings.ttl > .zero, document.gzip == nil, document.body.count >= settings.gzipMinBytes,
              let member = compressor.gzip(document.body), member.count < document.body.count
        else { return document }
        return document.withGzip(member)
    }
}
