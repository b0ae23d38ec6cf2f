import JSON

/// What the stub has seen since start or the last reset.
package struct StubStats: Sendable, Equatable {
    /// Requests received per route, whatever the answer (faults and `404`s included).
    package var product: Int
    package var reviews: Int
    package var suggested: Int
    /// Requests whose handler was cancelled before answering: the client went away mid-request.
    package var abandoned: Int
    /// Of those, the ones on the product route (the route that fault tests delay).
    package var abandonedProduct: Int
    /// Requests the slow-first-call fault delayed.
    package var slowFirstCalls: Int
    /// Connections open right now (not reset by `resetStats`).
    package var openConnections: Int
    /// Each route's workers (`STUB_WORKERS`, `STUB_SERVICE_MS`); `busy` and `queued` are gauges
    /// and are not reset.
    package var productWorkers: StubWorkerStats
    package var reviewsWorkers: StubWorkerStats
    package var suggestedWorkers: StubWorkerStats

    package init(
        product: Int = 0, reviews: Int = 0, suggested: Int = 0, abandoned: Int = 0, abandonedProduct: Int = 0,
        slowFirstCalls: Int = 0, openConnections: Int = 0, productWorkers: StubWorkerStats = StubWorkerStats(),
        reviewsWorkers: StubWorkerStats = StubWorkerStats(), suggestedWorkers: StubWorkerStats = StubWorkerStats()
    ) {
        self.product = product
        self.reviews = reviews
        self.suggested = suggested
        self.abandoned = abandoned
        self.abandonedProduct = abandonedProduct
        self.slowFirstCalls = slowFirstCalls
        self.openConnections = openConnections
        self.productWorkers = productWorkers
        self.reviewsWorkers = reviewsWorkers
        self.suggestedWorkers = suggestedWorkers
    }

    /// The workers of one served route.
    package func workers(on route: StubRoute) -> StubWorkerStats {
        switch route {
        case .product: productWorkers
        case .reviews: reviewsWorkers
        case .suggested: suggestedWorkers
        case .all: preconditionFailure("workers belong to one route")
        }
    }

    /// `{"requests":{"product":…,"reviews":…,"suggested":…},"abandoned":…,"abandonedProduct":…,
    /// "slowFirstCalls":…,"openConnections":…,"workers":{"product":{"workers":…,"busy":…,
    /// "queued":…,"served":…,"servedForGone":…},"reviews":{…},"suggested":{…}}}`
    package var json: [UInt8] {
        var writer = JSONBytesWriter(reservingCapacity: 384)
        writer.raw(#"{"requests":{"product":"#)
        writer.int(product)
        writer.raw(#","reviews":"#)
        writer.int(reviews)
        writer.raw(#","suggested":"#)
        writer.int(suggested)
        writer.raw(#"},"abandoned":"#)
        writer.int(abandoned)
        writer.raw(#","abandonedProduct":"#)
        writer.int(abandonedProduct)
        writer.raw(#","slowFirstCalls":"#)
        writer.int(slowFirstCalls)
        writer.raw(#","openConnections":"#)
        writer.int(openConnections)
        writer.raw(#","workers":{"product":"#)
        Self.write(productWorkers, to: &writer)
        writer.raw(#","reviews":"#)
        Self.write(reviewsWorkers, to: &writer)
        writer.raw(#","suggested":"#)
        Self.write(suggestedWorkers, to: &writer)
        writer.raw("}}")
        return writer.release()
    }

    private static func write(_ workers: StubWorkerStats, to writer: inout JSONBytesWriter) {
        writer.raw(#"{"workers":"#)
        writer.int(workers.workers)
        writer.raw(#","busy":"#)
        writer.int(workers.busy)
        writer.raw(#","queued":"#)
        writer.int(workers.queued)
        writer.raw(#","served":"#)
        writer.int(workers.served)
        writer.raw(#","servedForGone":"#)
        writer.int(workers.servedForGone)
        writer.raw("}")
    }
}
