/// How the shared cache (fleet mode) took part in an answer: its own member of `Cache-Status`.
package struct SharedCacheStatus: Sendable, Equatable {
    package enum Result: Sendable, Equatable {
        /// The page came from the shared cache.
        case hit
        /// It had no page: this replica loaded one (and `stored` tells whether it was shared).
        case miss
        /// It had a stale page, served while another replica refreshes it.
        case stale
        /// It was not asked (breaker open, or the fleet's invalidation log not read since this
        /// replica last subscribed) or did not answer in time.
        case bypass
        /// It was not asked because the client's request said so (`Cache-Control: no-cache`).
        case request
    }

    /// Why a page this replica loaded was not stored in the shared cache.
    package enum NotStored: String, Sendable, Equatable {
        /// Another replica held the product's lease (a `no-cache` refresh does not wait for it).
        case leaseHeld = "lease-held"
        /// The shared cache did not answer, its breaker is open, or this replica has not read the
        /// fleet's invalidation log since it last subscribed.
        case unavailable
    }

    package var result: Result
    /// Freshness left in the shared cache, for hits; negative when stale.
    package var ttlRemaining: Duration?
    /// The page this replica loaded was stored for the fleet.
    package var stored: Bool
    /// This replica waited for another replica's load.
    package var collapsed: Bool
    /// Set when the page was not shared for a reason the client should see.
    package var notStored: NotStored?

    package init(result: Result, ttlRemaining: Duration? = nil, stored: Bool = false, collapsed: Bool = false, notStored: NotStored? = nil) {
        self.result = result
        self.ttlRemaining = ttlRemaining
        self.stored = stored
        self.collapsed = collapsed
        self.notStored = notStored
    }
}
