/// A page as the shared cache keeps it: the ready-to-write document and the windows it was
/// stored with, so every replica serves it fresh, stale-while-revalidate or stale-if-error
/// exactly as the replica that loaded it would.
package struct SharedPage: Sendable, Equatable {
    package let document: CachedDocument
    package let ttl: Duration
    package let staleIfError: Duration
    package let staleWhileRevalidate: Duration
    /// The latest fleet invalidation its loader knew when the load began: a product the page
    /// shows that was invalidated after it makes the page unservable (``SharedInvalidationLog``).
    package let stamp: UInt64

    package init(
        document: CachedDocument, ttl: Duration, staleIfError: Duration = .zero, staleWhileRevalidate: Duration = .zero, stamp: UInt64 = 0
    ) {
        self.document = document
        self.ttl = ttl
        self.staleIfError = staleIfError
        self.staleWhileRevalidate = staleWhileRevalidate
        self.stamp = stamp
    }

    /// How long the shared cache keeps it: its TTL, then the longer stale window.
    package var lifetime: Duration {
        ttl + max(staleIfError, staleWhileRevalidate)
    }

    /// Its standing `age` after it was stored.
    package func standing(age: Duration) -> CacheLookup<CachedDocument> {
        if age < ttl { return .fresh(document, remaining: ttl - age) }
        let staleness = age - ttl
        let revalidate = staleness < staleWhileRevalidate
        let usableOnError = staleness < staleIfError
        guard revalidate || usableOnError else { return .miss }
        return .stale(document, age: staleness, revalidate: revalidate, usableOnError: usableOnError)
    }
}
