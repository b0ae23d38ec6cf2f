/// A document to write and how the cache took part in producing it.
public struct DetailAnswer: Sendable, Equatable {
    public let document: CachedDocument
    public let cache: CacheOutcome
    /// The trace id of the load that produced the document, when this request joined a load
    /// another request had started (`cache.collapsed`): its upstream calls carry that trace.
    public let loadTraceID: String?

    public init(document: CachedDocument, cache: CacheOutcome, loadTraceID: String? = nil) {
        self.document = document
        self.cache = cache
        self.loadTraceID = loadTraceID
    }
}
