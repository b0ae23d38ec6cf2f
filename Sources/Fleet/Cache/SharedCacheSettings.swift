import ProductDetails
/// The knobs of the shared cache (fleet mode), with defaults and why.
package struct SharedCacheSettings: Sendable, Equatable {
    /// The Redis time one cache miss may spend in all before it loads by itself. 250 ms: inside
    /// the range the fleet caches we compared pick (Apollo Router 150-500 ms; Kong's 2 s waits
    /// longer than our whole 1 s upstream attempt), far above a healthy LAN round trip, and small
    /// against the 3 s request deadline, so a sick Redis costs a miss a quarter second once and,
    /// with the breaker open, nothing. No timeout at all (FusionCache's default) lets a stalled
    /// Redis hold every miss.
    package var timeout: Duration
    /// How long a load lease lasts unless its holder renews it (every third of it while loading).
    /// 1 s: a holder that dies costs its waiters at most this, then one of them loads.
    package var leaseDuration: Duration
    /// Failures in a row that open the breaker.
    package var breakerFailures: Int
    /// How long the open breaker keeps requests off Redis before one probe may try it again.
    package var breakerOpenFor: Duration
    /// The most an L1 page counts as fresh while invalidations may be missed (the subscriber is
    /// disconnected): a replica stops serving a page invalidated elsewhere within this.
    package var disconnectedFreshness: Duration
    /// The first and the longest pause between reads while another replica loads the page.
    package var pollInitial: Duration
    package var pollMax: Duration
    /// Fleet invalidations kept, in Redis's log and in each replica's memory: a replica that
    /// missed more than this while disconnected reloads the pages that show other products, as
    /// does one whose memory overflowed. Ten thousand: a nightly bulk of several thousand ids
    /// fits, for a few hundred kilobytes.
    package var invalidationMemory: Int

    /// How long an invalidation may wait for Redis: an operator's call, not a page's, and a bulk
    /// of a thousand ids is a thousand commands, so at least a second (or `timeout` if longer).
    package var invalidationTimeout: Duration {
        max(timeout, .seconds(1))
    }

    package init(
        timeout: Duration = .milliseconds(250),
        leaseDuration: Duration = .seconds(1),
        breakerFailures: Int = 5,
        breakerOpenFor: Duration = .seconds(5),
        disconnectedFreshness: Duration = .seconds(2),
        pollInitial: Duration = .milliseconds(2),
        pollMax: Duration = .milliseconds(25),
        invalidationMemory: Int = 10_000
    ) {
        self.timeout = timeout
        self.leaseDuration = leaseDuration
        self.breakerFailures = breakerFailures
        self.breakerOpenFor = breakerOpenFor
        self.disconnectedFreshness = disconnectedFreshness
        self.pollInitial = pollInitial
        self.pollMax = pollMax
        self.invalidationMemory = invalidationMemory
    }
}
