/// A document to write and how the cache took part in producing it.
package struct DetailAnswer: Sendable, Equatable {
    package let document: CachedDocument
    package let cache: CacheOutcome
    /// The trace id of the load that produced the document, when this request joined a load
    /// another request had started (`cache.collapsed`): its upstream calls carry that trace.
    package let loadTraceID: String?

    package init(document: CachedDocument, cache: CacheOutcome, loadTraceID: String? = nil) {
        self.document = document
        self.cache = cache
        self.loadTraceID = loadTraceID
    }
}
