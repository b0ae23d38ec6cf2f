import EventLoop
import HTTP1
import HTTPServer
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The running service: event loops, the HTTP server and its routes.
public final class Application: Sendable {
    public let configuration: AppConfiguration
    public let group: EventLoopGroup
    public let server: HTTPServer
    public let logger: Logger
    private let signalled = Mutex<SignalState>(SignalState())

    private struct SignalState {
        var received: Int32?
        var waiter: CheckedContinuation<Int32, Never>?
        var watchers: [LoopBound<SignalWatcher>] = []
    }

    public init(configuration: AppConfiguration) throws {
        self.configuration = configuration
        logger = Logger(minimum: Logger.Level(configuration.logLevel))
        group = try EventLoopGroup(loopCount: configuration.loops)
        var router = Router()
        let readiness = Readiness()
        HealthRoutes(readiness: readiness).register(in: &router)
        let routes = router
        server = HTTPServer(group: group, configuration: configuration.server) { request, context in
            await routes.respond(to: request, context: context)
        }
        readiness.server = server
    }

    /// Binds the listeners; returns the port.
    @discardableResult
    public func start() async throws -> Int {
        let port = try await server.start()
        logger.info("listening", [("host", configuration.server.host), ("port", String(port)), ("loops", String(group.loops.count))])
        return port
    }

    /// Waits for SIGTERM or SIGINT, then shuts down gracefully.
    public func runUntilSignalled() async throws {
        let loop = group.loops[0]
        try await Task(executorPreference: loop) { [self] in
            var watchers: [LoopBound<SignalWatcher>] = []
            for signal in [SIGTERM, SIGINT] {
                let watcher = try SignalWatcher(loop: loop, signal: signal) { [self] received in deliver(received) }
                watchers.append(LoopBound(watcher, loop: loop))
            }
            signalled.withLock { $0.watchers = watchers }
        }.value
        let signal = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let already = signalled.withLock { state -> Int32? in
                if let received = state.received { return received }
                state.waiter = continuation
                return nil
            }
            if let already { continuation.resume(returning: already) }
        }
        logger.info("shutting down", [("signal", String(signal)), ("graceSeconds", String(describing: configuration.shutdownGrace.components.seconds))])
        await stop()
    }

    private func deliver(_ signal: Int32) {
        let waiter = signalled.withLock { state -> CheckedContinuation<Int32, Never>? in
            guard state.received == nil else { return nil }
            state.received = signal
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: signal)
    }

    /// Graceful stop: not ready, stop accepting, let in-flight requests finish within the grace
    /// period, close the rest, stop the loops.
    public func stop() async {
        await server.shutdown(grace: configuration.shutdownGrace)
        group.shutdown()
        logger.info("stopped")
    }
}

/// Readiness: false once shutdown has begun.
final class Readiness: Sendable {
    private let current = Mutex<HTTPServer?>(nil)

    var server: HTTPServer? {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    var isReady: Bool { server.map { !$0.isDraining } ?? false }
}
