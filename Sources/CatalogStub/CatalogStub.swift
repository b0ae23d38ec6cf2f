import EventLoop
@_spi(FaultInjection) import HTTPServer

/// The three upstream services of a product-detail page (products, reviews, suggestions) in one
/// HTTP server, over a deterministic catalog, with faults injected on demand.
///
/// Faults come from three places, most specific first: `X-Stub-*` headers on a request, plans
/// scripted with `setFaults` or `PUT /control/faults/{route}`, and the configuration's defaults
/// (the `STUB_*` environment). See `FaultPlan` for what each fault does.
package final class CatalogStub: Sendable {
    package let catalog: Catalog
    package let configuration: StubConfiguration
    package let group: EventLoopGroup
    package let server: HTTPServer
    private let responder: StubResponder

    /// Builds the catalog and routes; nothing listens until `start`. The group stays the
    /// caller's: `shutdown` does not stop it.
    package init(group: EventLoopGroup, configuration: StubConfiguration) {
        self.group = group
        self.configuration = configuration
        catalog = Catalog(size: configuration.catalogSize, seed: configuration.seed)
        let responder = StubResponder(
            catalog: catalog, defaultFaults: configuration.defaultFaults, seed: configuration.seed,
            workers: configuration.workersPerRoute, serviceTime: configuration.serviceTime,
            time: LoopTimeSource(fallbackLoop: group.loops[0]))
        var router = Router<StubExchange>()
        responder.register(in: &router)
        let routes = router
        var serverConfiguration = ServerConfiguration()
        serverConfiguration.host = configuration.host
        serverConfiguration.port = configuration.port
        serverConfiguration.edgeTriggeredPolling = configuration.edgeTriggeredPolling
        server = HTTPServer(
            group: group, configuration: serverConfiguration,
            resetAfterBodyBytes: AttachedContext<StubExchange>.reading { $0.attachment?.resetAfterBodyBytes },
            responder: AttachedContext.responder { request, context in
                // The exchange the fault hook reads back when the answer is written.
                context.attachment = StubExchange()
                return routes.respond(to: &request, context: &context)
            })
        responder.attach(server)
        self.responder = responder
    }

    /// Binds the listeners; returns the port (the kernel's pick when the configuration says 0).
    @discardableResult
    package func start() async throws -> Int {
        try await server.start()
    }

    /// The bound port (0 before `start`).
    package var port: Int { server.port }

    /// Stops accepting, gives requests in progress `configuration.shutdownGrace`, then closes
    /// every connection (cancelling handlers that still hang).
    package func shutdown() async {
        await server.shutdown(grace: configuration.shutdownGrace)
    }

    package func stats() -> StubStats {
        responder.stats()
    }

    /// The `X-Request-ID` headers of the latest upstream requests (at most 64), oldest first, so a
    /// test can see that the caller passed its request id on.
    package func recentRequestIDs() -> [String] {
        responder.requestIDs.values
    }

    /// The `traceparent` and `tracestate` headers of the latest upstream requests (at most 64),
    /// oldest first, so a test can see the trace each attempt carried.
    package func recentTraceHeaders() -> [StubTraceHeaders] {
        responder.traceHeaders.values
    }

    /// Zeroes the request, abandon, slow-first-call and workers' served counters
    /// (`openConnections` and the workers' `busy` and `queued` are gauges and stay).
    package func resetStats() {
        responder.resetStats()
    }

    /// Applies `plan` to the next `times` requests on `route` (all of them until `clearFaults`
    /// when nil). A route's own plan wins over an `all` plan; setting `all` replaces them.
    package func setFaults(_ plan: FaultPlan, for route: StubRoute, times: Int? = nil) {
        responder.setFaults(plan, for: route, times: times)
    }

    /// Holds requests on `route` (every route for `.all`) from now on, until `resume`: each is
    /// counted in `stats()` as it arrives, then waits. Pausing another route adds to the routes
    /// held. A held request whose client goes away counts as abandoned.
    package func pause(route: StubRoute) {
        responder.gate.pause(route)
    }

    /// Releases every held request and stops holding any route.
    package func resume() {
        responder.gate.resume()
    }

    /// Requests held by `pause(route:)` right now.
    package var pausedRequests: Int {
        responder.gate.waiting
    }

    /// Drops every scripted plan (the configuration's defaults remain), restarts the error-rate
    /// sequences and forgets which products have had their first call (`slowFirstEvery`).
    package func clearFaults() {
        responder.clearFaults()
    }

    /// Changes the product `id` as `PUT /control/products/{id}` does (replacing any earlier change)
    /// and returns it as it is now answered; nil when the catalog has no such product or already
    /// holds its maximum of changed products. `catalog` stays the generated catalog, unchanged.
    package func changeProduct(_ id: String, _ change: ProductChange) -> StubProduct? {
        precondition(change.refusal == nil, "an invalid product change: \(change.refusal ?? "")")
        guard let index = catalog.index(of: id), responder.productChanges.set(change, at: index) else { return nil }
        return change.applied(to: catalog.product(at: index))
    }

    /// Undoes every product change (`DELETE /control/products`); `clearFaults` leaves them.
    package func undoProductChanges() {
        responder.productChanges.removeAll()
    }
}

/// What the stub decides about one exchange beyond its answer, attached to the request's context
/// (its `attachment`) and read back by the server's fault hook when the answer is
/// written: the fault stays in the stub, not in the server's types.
///
/// `@unchecked Sendable`: `resetAfterBodyBytes` is written by the request's handler task before
/// it returns its answer, and read on the connection's loop after that answer arrived (the task's
/// completion orders the two); nothing else touches it.
final class StubExchange: @unchecked Sendable {
    /// Write the head and only this many body bytes, then reset the connection, as a peer that
    /// dies mid-answer would. Nil for every whole answer.
    var resetAfterBodyBytes: Int?
}
