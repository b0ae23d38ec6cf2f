import Fleet
import Logging
import CatalogStub
import EventLoop
import HTTP1
import HTTPClient
import HTTPServer
import ProductDetails
import Locking
import Synchronization
import Timekeeping

#if canImport(Glibc)
import Glibc
#endif

/// The running service: event loops, the upstream client, the domain service, the HTTP server
/// and its routes, and (in demo mode) the in-process catalog.
package final class Application: Sendable {
    package let configuration: AppConfiguration
    package let group: EventLoopGroup
    package let server: HTTPServer
    package let client: HTTPClient
    package let service: ProductDetailsService
    package let logger: Logger
    /// The in-process demo catalog when no upstream is configured.
    package let demoCatalog: CatalogStub?
    /// Redis and the shared cache, in fleet mode.
    let fleet: FleetRuntime?
    /// The one time line the service, the server, the client and Redis wait and expire on.
    private let time: any TimeSource
    private let signals: SignalWaiter

    private init(
        configuration: AppConfiguration, group: EventLoopGroup, server: HTTPServer, client: HTTPClient,
        service: ProductDetailsService, logger: Logger, demoCatalog: CatalogStub?, fleet: FleetRuntime?,
        time: any TimeSource, signals: SignalWaiter
    ) {
        self.time = time
        self.signals = signals
        self.configuration = configuration
        self.group = group
        self.server = server
        self.client = client
        self.service = service
        self.logger = logger
        self.demoCatalog = demoCatalog
        self.fleet = fleet
    }

    /// How long stopping waits for the log writer to write what is buffered: a sink stuck in
    /// `write(2)` is not waited for past it.
    package static let logFlushTimeout: Duration = .seconds(1)

    /// Builds every part, binds the listeners and returns the running application.
    /// - Parameter logDestination: where log lines go (standard output unless a test collects them).
    package static func start(
        configuration: AppConfiguration, logDestination: LogDestination = .descriptor(1)
    ) async throws -> Application {
        let writer = LogWriter(capacity: configuration.logBufferBytes, destination: logDestination)
        let logger = Logger(minimum: Logger.Level(configuration.logLevel), writer: writer)
        do {
            let group = try EventLoopGroup(loopCount: configuration.loops, bypassing: configuration.epollInterposerBypass)
            do {
                return try await start(configuration: configuration, group: group, logger: logger)
            } catch {
                group.shutdown()
                throw error
            }
        } catch {
            writer.close(within: logFlushTimeout)
            throw error
        }
    }

    private static func start(configuration: AppConfiguration, group: EventLoopGroup, logger: Logger) async throws -> Application {
        // Watched before anything is logged: a SIGTERM sent as soon as a start-up line shows (or
        // "listening") used to arrive before `runUntilSignalled` installed the watchers, and its
        // default action ended the process with no graceful stop.
        let signals = SignalWaiter()
        try await signals.watch(on: group.loops[0], for: [SIGTERM, SIGINT])
        var configuration = configuration
        let listenAddress = try await ListenAddress.settle(
            host: configuration.server.host, port: configuration.server.port, on: group.loops[0])
        (configuration.server.host, configuration.server.port) = (listenAddress.ip, listenAddress.port)
        let pollingCheck = await checkPolling(configuration: &configuration, group: group, logger: logger)
        let (origins, demoCatalog) = try await upstreamOrigins(configuration, group: group, logger: logger)
        let time = LoopTimeSource(fallbackLoop: group.loops[0])
        let client = HTTPClient(group: group, configuration: configuration.client, time: time)
        let upstreams = HTTPUpstreams(client: client, products: origins.products, reviews: origins.reviews, suggestions: origins.suggestions)
        let metrics = ServiceMetrics(group: group)
        // Fleet mode is decided here, once; everything after asks `fleet`. The Redis client shares
        // the time line: the shared cache's deadlines are computed by the domain and enforced by it.
        let fleet = configuration.redisURL.map { url in
            FleetRuntime(
                url: url, settings: configuration.sharedCache, serviceSettings: configuration.service, keyPrefix: configuration.redisKeyPrefix,
                busyPoll: configuration.redisBusyPoll, group: group, time: time, registry: metrics.registry, logger: logger)
        }
        let events = ServiceEventFanOut(
            metrics: metrics, faultLog: UpstreamFaultLog(logger: logger, time: time),
            breakerOpened: { upstream in client.failQueued(pool: upstream.rawValue) })
        let deflaters = LoopDeflaters(group: group)
        let service = ProductDetailsService(
            products: upstreams, reviews: upstreams, suggestions: upstreams, settings: configuration.service,
            time: time, events: events, loads: fleet?.loads ?? LocalLoads(), compressor: deflaters, load: LoopLoad())
        fleet?.start(service: service, loop: group.loops[0], time: time)
        let readiness = Readiness()
        let front = AppRoutes.front(
            service: service, readiness: readiness, metrics: metrics, logger: logger, adminToken: configuration.adminToken,
            compression: ResponseCompression(deflaters: deflaters, minBytes: configuration.service.gzipMinBytes),
            surrogateKeyHeader: configuration.surrogateKeyHeader,
            fleet: fleet, time: time)
        let server = HTTPServer(
            group: group, configuration: configuration.server, time: time,
            answered: AnsweredRequest.observer { response, request in front.answered(&response, request) },
            responder: ProductContext.responder { request, context in front.respond(to: &request, context: &context) })
        metrics.observe(logWriter: logger.writer)
        metrics.observe(edgeTriggeredPolling: configuration.server.edgeTriggeredPolling)
        metrics.observe(service: service, server: server, client: client)
        readiness.server = server
        let port = try await server.start()
        announce(configuration, port: port, pollingCheck: pollingCheck, demoCatalog: demoCatalog, fleet: fleet, logger: logger, group: group)
        return Application(
            configuration: configuration, group: group, server: server, client: client, service: service,
            logger: logger, demoCatalog: demoCatalog, fleet: fleet, time: time, signals: signals)
    }

    /// Where the three upstreams are: the configured origins, or an in-process demo catalog
    /// (returned too, to stop it) when none is configured.
    private static func upstreamOrigins(
        _ configuration: AppConfiguration, group: EventLoopGroup, logger: Logger
    ) async throws -> (origins: (products: Origin, reviews: Origin, suggestions: Origin), demoCatalog: CatalogStub?) {
        guard configuration.isDemo else {
            let origins = (
                try Origin(url: configuration.productsURL!), try Origin(url: configuration.reviewsURL!),
                try Origin(url: configuration.suggestionsURL!)
            )
            return (origins, nil)
        }
        var stubConfiguration = StubConfiguration()
        stubConfiguration.port = 0
        stubConfiguration.catalogSize = configuration.demoCatalogSize
        stubConfiguration.edgeTriggeredPolling = configuration.server.edgeTriggeredPolling
        let stub = CatalogStub(group: group, configuration: stubConfiguration)
        let port = try await stub.start()
        let origin = Origin(host: "127.0.0.1", port: port)
        return ((origin, origin, origin), stub)
    }

    /// The start-up lines that say what runs: the listener, the mode, the effective settings.
    private static func announce(
        _ configuration: AppConfiguration, port: Int, pollingCheck: String, demoCatalog: CatalogStub?, fleet: FleetRuntime?,
        logger: Logger, group: EventLoopGroup
    ) {
        if let demoCatalog {
            // Said once the listeners are bound, so that the hint names the port they took.
            logger.lifecycle("no upstream configured: serving the demo catalog", [
                ("catalogURL", Origin(host: "127.0.0.1", port: demoCatalog.port).description),
                ("products", String(configuration.demoCatalogSize)),
                ("try", "curl localhost:\(port)/products/p1"),
            ])
        }
        logger.lifecycle("listening", [
            ("host", configuration.server.host), ("port", String(port)), ("loops", String(group.loops.count)),
            ("version", AppVersion.current), ("allocator", AllocatorTuning.current),
            ("polling", configuration.server.edgeTriggeredPolling ? "edge" : "level"), ("pollingCheck", pollingCheck),
        ])
        if let fleet {
            logger.lifecycle("fleet mode: replicas share a Redis cache", [
                ("redis", fleet.url.description), ("keyPrefix", fleet.keys.prefix),
                ("timeoutMs", String(configuration.sharedCache.timeout.wholeMilliseconds)),
            ])
        } else {
            logger.lifecycle("single-node mode: REDIS_URL is not set, the cache is this process's own")
        }
        logger.info("configuration", configuration.effective)
    }

    /// Runs the start-up check of edge-triggered polling when the configuration asks for it; when
    /// the check fails on any loop, every loop polls level-triggered and one warning says why.
    /// Returns the check's outcome for the `listening` line.
    private static func checkPolling(configuration: inout AppConfiguration, group: EventLoopGroup, logger: Logger) async -> String {
        guard configuration.server.edgeTriggeredPolling else { return "not run (CONNECTION_POLLING=level)" }
        switch await EdgeTriggeredPollingCheck.run(on: group) {
        case .passed:
            return "passed"
        case .failed(let reason):
            configuration.server.edgeTriggeredPolling = false
            logger.warn("edge-triggered polling is not available here: client connections are polled level-triggered", [
                ("reason", reason),
            ])
            return "failed: " + reason
        }
    }

    /// The port the service listens on.
    package var port: Int { server.port }

    /// Waits for SIGTERM or SIGINT, then shuts down gracefully.
    package func runUntilSignalled() async throws {
        let signal = await signals.wait()
        logger.lifecycle("shutting down", [("signal", String(signal)), ("graceSeconds", String(configuration.shutdownGrace.wholeSeconds))])
        await stop()
    }

    /// Graceful stop: not ready, stop accepting, let in-flight requests finish within the grace
    /// period, close the rest, stop the loops.
    package func stop() async {
        server.beginDraining()
        if configuration.shutdownDelay > .zero {
            // Not ready, still serving: load balancers see /readyz fail and move traffic away
            // before the listeners close.
            try? await time.sleep(for: configuration.shutdownDelay)
        }
        let cutShort = await server.shutdown(grace: configuration.shutdownGrace)
        if cutShort > 0 {
            logger.warn("shutdown grace period ended: requests cut short with 503", [("cutShort", String(cutShort))])
        }
        await client.shutdown()
        await fleet?.shutdown()
        await demoCatalog?.shutdown()
        group.shutdown()
        logger.lifecycle("stopped", [("cutShort", String(cutShort))])
        logger.writer.close(within: Self.logFlushTimeout)
    }
}

/// Readiness: false once shutdown has begun.
final class Readiness: Sendable {
    private let current = Locked<HTTPServer?>(nil)

    var server: HTTPServer? {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    var isReady: Bool { server.map { !$0.isDraining } ?? false }
}

/// ``LocalLoad`` as the event loop running the caller measures it: saturated while the loop spent
/// at least ``threshold`` of its recent time working rather than waiting for I/O. Off the loops
/// (tests, start-up) never saturated.
struct LoopLoad: LocalLoad {
    /// Nine tenths: a loop this busy answers every event late by its queue, and a hedge's reply
    /// would wait in that queue too.
    static let threshold = 0.9

    var isSaturated: Bool {
        guard let loop = EventLoop.current else { return false }
        return loop.utilization >= Self.threshold
    }
}
