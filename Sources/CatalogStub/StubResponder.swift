import EventLoop
import HTTP1
import HTTPServer
import Locking
import Synchronization
import Timekeeping

/// Answers the stub's routes: the three upstream resources with faults and product changes
/// applied, the stats, and the control routes. Shared by every loop; its state is atomics and
/// short locks.
final class StubResponder: Sendable {
    let catalog: Catalog
    let defaultFaults: FaultPlan
    let counters = StatsCounters()
    let errors: ErrorRateSequence
    let schedule = Locked(FaultSchedule())
    let gate = PauseGate()
    let firstCalls = FirstCalls()
    let productChanges = ProductChanges()
    /// Each served route's workers (`STUB_WORKERS`, `STUB_SERVICE_MS`); empty when the stub runs
    /// without them, and then no request takes a lock for them.
    let workers: [StubRoute: RouteWorkers]
    /// The server, for its open-connection count; weak because the server owns the routes that
    /// own this responder.
    private let server = Locked(WeakServer())

    private struct WeakServer {
        weak var server: HTTPServer?
    }

    /// `workers` 0 and `serviceTime` zero: no workers, every request answered as soon as its
    /// faults allow.
    init(catalog: Catalog, defaultFaults: FaultPlan, seed: UInt64, workers: Int = 0, serviceTime: Duration = .zero, time: any TimeSource) {
        self.catalog = catalog
        self.defaultFaults = defaultFaults
        errors = ErrorRateSequence(seed: seed)
        var pools: [StubRoute: RouteWorkers] = [:]
        if workers > 0 || serviceTime > .zero {
            for route in StubRoute.served {
                pools[route] = RouteWorkers(workers: workers, serviceTime: serviceTime, time: time)
            }
        }
        self.workers = pools
    }

    func attach(_ server: HTTPServer) {
        self.server.withLock { $0.server = server }
    }

    var openConnections: Int {
        server.withLock { $0.server }?.openConnections ?? 0
    }

    func stats() -> StubStats {
        var stats = counters.snapshot(openConnections: openConnections)
        stats.productWorkers = workers[.product]?.stats() ?? StubWorkerStats()
        stats.reviewsWorkers = workers[.reviews]?.stats() ?? StubWorkerStats()
        stats.suggestedWorkers = workers[.suggested]?.stats() ?? StubWorkerStats()
        return stats
    }

    /// Zeroes the counters, the workers' included (not their gauges).
    func resetStats() {
        counters.reset()
        for pool in workers.values { pool.resetCounts() }
    }

    func register(in router: inout Router<StubExchange>) {
        router.add(.get, "/products/{id}") { [self] request, context in await serve(.product, request, context) }
        router.add(.get, "/products/{id}/reviews") { [self] request, context in await serve(.reviews, request, context) }
        router.add(.get, "/products/{id}/suggested") { [self] request, context in await serve(.suggested, request, context) }
        router.add(.get, "/stats") { [self] _, _ in .json(.ok, stats().json) }
        router.add(.delete, "/stats") { [self] _, _ in
            resetStats()
            return HTTPResponse(status: .noContent)
        }
        router.add(.put, "/control/faults/{route}") { [self] request, _ in control(request) }
        router.add(.delete, "/control/faults") { [self] _, _ in
            clearFaults()
            return HTTPResponse(status: .noContent)
        }
        router.add(.put, "/control/products/{id}") { [self] request, _ in changeProduct(request) }
        router.add(.delete, "/control/products/{id}") { [self] request, _ in undoChange(request) }
        router.add(.delete, "/control/products") { [self] _, _ in
            productChanges.removeAll()
            return HTTPResponse(status: .noContent)
        }
        router.add(.get, "/healthz") { _, _ in .json(.ok, Array(#"{"status":"ok"}"#.utf8)) }
    }

    // MARK: Faults

    func setFaults(_ plan: FaultPlan, for route: StubRoute, times: Int?) {
        schedule.withLock { $0.set(plan, for: route, times: times) }
    }

    /// Drops every scripted plan, restarts the error-rate sequences and forgets which products
    /// have had their first call.
    func clearFaults() {
        schedule.withLock { $0.clear() }
        errors.restart()
        firstCalls.forget()
    }

    /// The plan for one request: its headers over the scripted plan over the process default.
    private func plan(for route: StubRoute, headers: HTTPHeaders) throws(FaultSettingError) -> FaultPlan {
        let scripted = schedule.withLock { $0.take(for: route) }
        return try (scripted ?? defaultFaults).overridden(by: headers)
    }

    private func control(_ request: HTTPRequest) -> HTTPResponse {
        let name = request.pathParameters["route"] ?? ""
        guard let route = StubRoute(rawValue: name) else {
            let known = StubRoute.allCases.map(\.rawValue).joined(separator: ", ")
            return ProblemDetails(status: .notFound, detail: "No route \"\(name)\"; known: \(known).").response()
        }
        do {
            let scripted = try FaultControlRequest.decode(request.body)
            setFaults(scripted.plan, for: route, times: scripted.times)
            return HTTPResponse(status: .noContent)
        } catch {
            return ProblemDetails(status: .badRequest, detail: error.message).response()
        }
    }

    // MARK: Product changes

    /// `PUT /control/products/{id}`: 200 with the product as `GET /products/{id}` now answers it.
    private func changeProduct(_ request: HTTPRequest) -> HTTPResponse {
        let id = request.pathParameters["id"] ?? ""
        guard let index = catalog.index(of: id) else { return Self.unknownProduct(id) }
        let change: ProductChange
        do {
            change = try ProductChange.decode(request.body)
        } catch {
            return ProblemDetails(status: .badRequest, detail: error.message).response()
        }
        guard productChanges.set(change, at: index) else {
            let detail = "The stub holds at most \(productChanges.capacity) changed products; DELETE /control/products undoes them all."
            return ProblemDetails(status: .conflict, detail: detail).response()
        }
        return .json(.ok, Catalog.json(of: change.applied(to: catalog.product(at: index))))
    }

    /// `DELETE /control/products/{id}`: the product is the catalog's own again (204 whether or not
    /// it was changed, so an undo can be repeated).
    private func undoChange(_ request: HTTPRequest) -> HTTPResponse {
        let id = request.pathParameters["id"] ?? ""
        guard let index = catalog.index(of: id) else { return Self.unknownProduct(id) }
        productChanges.remove(at: index)
        return HTTPResponse(status: .noContent)
    }

    private static func unknownProduct(_ id: String) -> HTTPResponse {
        ProblemDetails(status: .notFound, detail: "No product with id \"\(id)\".").response()
    }

    /// The `X-Request-ID`s of the latest upstream requests, oldest first.
    let requestIDs = RecentValues<String>(capacity: 64)
    /// The W3C trace headers of the latest upstream requests, oldest first.
    let traceHeaders = RecentValues<StubTraceHeaders>(capacity: 64)

    // MARK: Upstream routes

    private func serve(_ route: StubRoute, _ request: HTTPRequest, _ context: AttachedContext<StubExchange>) async -> HTTPResponse {
        counters.received(route)
        if let id = request.headers["X-Request-ID"] { requestIDs.record(id) }
        traceHeaders.record(StubTraceHeaders(
            route: route, traceparent: request.headers["traceparent"], tracestate: request.headers["tracestate"]))
        // Counted first, then held: a paused route's arrivals show in `stats()` while they wait.
        guard await gate.pass(route) else { return abandoned(route) }
        let plan: FaultPlan
        do {
            plan = try self.plan(for: route, headers: request.headers)
        } catch {
            return ProblemDetails(status: .badRequest, detail: error.description).response()
        }
        let id = request.pathParameters["id"] ?? ""
        var delayMs = plan.latencyMs
        if plan.slowFirstMs > 0, firstCalls.isSlowFirstCall(on: route, id: id, every: plan.slowFirstEvery) {
            counters.slowFirstCall()
            delayMs += plan.slowFirstMs
        }
        let clock = LoopTimeSource(fallbackLoop: context.loop)
        if delayMs > 0 {
            do {
                try await clock.sleep(for: .milliseconds(delayMs))
            } catch {
                return abandoned(route)
            }
        }
        if plan.hang {
            while !Task.isCancelled {
                try? await clock.sleep(for: .seconds(3600))
            }
            return abandoned(route)
        }
        // After the delays and the hang, which stand for the network or a tier in front of the
        // workers: a hung request would otherwise hold a worker for ever, and a slow first call
        // would make the slow-first scenario measure the worker pool rather than the hedging.
        if let pool = workers[route], !(await pool.serve()) {
            return abandoned(route)
        }
        if errors.fails(route, rate: plan.errorRate) {
            return injectedError(plan)
        }
        guard var body = body(for: route, id: id, plan: plan) else { return Self.unknownProduct(id) }
        if plan.malformedJSON {
            body = Array(body.prefix(max(1, body.count / 2)))
        }
        let response = HTTPResponse.json(.ok, body)
        if plan.resetMidBody {
            context.attachment?.resetAfterBodyBytes = body.count / 2
        }
        if Task.isCancelled { return abandoned(route) }
        return response
    }

    private func body(for route: StubRoute, id: String, plan: FaultPlan) -> [UInt8]? {
        guard let index = catalog.index(of: id) else { return nil }
        let product = productChanges.product(at: index, in: catalog)
        switch route {
        case .product:
            return plan.oversized ? OversizedBody.product(product, atLeast: plan.oversizedBytes) : Catalog.json(of: product)
        case .reviews:
            let reviews = catalog.reviews(at: index)
            return plan.oversized
                ? OversizedBody.reviews(reviews, productID: id, atLeast: plan.oversizedBytes)
                : Catalog.json(of: reviews)
        case .suggested:
            let suggestions = productChanges.products(at: catalog.suggestionIndices(at: index), in: catalog)
            guard plan.oversized else { return Catalog.json(of: suggestions) }
            let neighbour = catalog.size > 1 ? productChanges.product(at: index % catalog.size + 1, in: catalog) : StubProduct(id: "\(id)-twin", name: product.name, priceInCents: product.priceInCents, currency: product.currency)
            return OversizedBody.suggestions(suggestions, neighbour: neighbour, atLeast: plan.oversizedBytes)
        case .all:
            return nil
        }
    }

    private func injectedError(_ plan: FaultPlan) -> HTTPResponse {
        var headers = HTTPHeaders()
        if let seconds = plan.retryAfterSeconds {
            headers.add(name: "Retry-After", value: String(seconds))
        }
        let problem = ProblemDetails(status: HTTPStatus(code: plan.errorStatus), detail: "Injected fault (error rate \(plan.errorRate)).")
        return problem.response(headers: headers)
    }

    /// Counts a request whose client went away; the answer is never written.
    private func abandoned(_ route: StubRoute) -> HTTPResponse {
        counters.abandon(route)
        return HTTPResponse(status: HTTPStatus(code: 499, reasonPhrase: "Client Closed Request"))
    }
}

/// The W3C trace headers one upstream request carried, as the stub received them.
package struct StubTraceHeaders: Sendable, Equatable {
    package let route: StubRoute
    package let traceparent: String?
    package let tracestate: String?
}
