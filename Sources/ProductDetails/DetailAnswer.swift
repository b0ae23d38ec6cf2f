/// A document to write and how the cache took part in producing it.
public struct DetailAnswer: Sendable, Equatable {
    public let document: CachedDocument
    public let cache: CacheOutcome

    public init(document: CachedDocument, cache: CacheOutcome) {
        self.document = document
        self.cache = cache
    }
}
