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

    package init(product: Int = 0, reviews: Int = 0, suggested: Int = 0, abandoned: Int = 0, abandonedProduct: Int = 0, slowFirstCalls: Int = 0, openConnections: Int = 0) {
        self.product = product
        self.reviews = reviews
        self.suggested = suggested
        self.abandoned = abandoned
        self.abandonedProduct = abandonedProduct
        self.slowFirstCalls = slowFirstCalls
        self.openConnections = openConnections
    }

    /// `{"requests":{"product":…,"reviews":…,"suggested":…},"abandoned":…,"abandonedProduct":…,
    /// "slowFirstCalls":…,"openConnections":…}`
    package var json: [UInt8] {
        var writer = JSONBytesWriter(reservingCapacity: 128)
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
        writer.raw("}")
        return writer.release()
    }
}
