import EventLoop
import HTTP1
import Locking
import Synchronization
import Timekeeping

/// An HTTP/1.1 server with one listener per event loop (`SO_REUSEPORT`): each connection lives on
/// the loop that accepted it. A request is answered on the loop thread when the responder can
/// answer it at once, else by a task that prefers that loop.
package final class HTTPServer: Sendable {
    package let group: EventLoopGroup
    package let configuration: ServerConfiguration
    let responder: Responder
    let answerObserver: AnswerObserver?
    /// Fault injection (the catalog stub's): after how many body bytes an answer is cut off by a
    /// connection reset. Nil in the service.
    let resetAfterBodyBytes: (@Sendable (RequestContext) -> Int?)?
    /// The time line the connections' idle rule reads (`HTTPConnectionStateMachine`) and the
    /// shutdown's grace period is slept on.
    let time: any TimeSource
    let connections = ConnectionCounter()
    /// Requests being handled now, across loops.
    let requests = InFlightRequestCounter()
    private let draining = Atomic<Bool>(false)
    private let loopServers = Locked<[LoopBound<LoopServer>]>([])
    private let boundPort = Atomic<Int>(0)

    /// `responder` is asked for every request on its connection's loop thread: an answer it
    /// gives at once is written with no task made for it; work it defers runs as a task
    /// preferring the loop. `answered`, when given, sees every answer the server writes, whoever
    /// gave it. `time` defaults to a `LoopTimeSource` on the group.
    package convenience init(
        group: EventLoopGroup, configuration: ServerConfiguration, time: (any TimeSource)? = nil,
        answered: AnswerObserver? = nil, responder: @escaping Responder
    ) {
        self.init(group: group, configuration: configuration, time: time, answered: answered, resetAfterBodyBytes: nil, responder: responder)
    }

    /// A server whose answers a test double may cut short: `resetAfterBodyBytes`, asked with the
    /// context of each answer (its attachment, which the responder filled in: made typed by
    /// ``AttachedContext/reading(_:)``), returns after how many body bytes to reset the
    /// connection instead of writing the rest, or nil. `public` because only a public
    /// declaration can be SPI, which keeps this initializer out of sight of every module that
    /// does not ask for the fault injection.
    @_spi(FaultInjection)
    public init(
        group: EventLoopGroup, configuration: ServerConfiguration, time: (any TimeSource)? = nil,
        answered: AnswerObserver? = nil, resetAfterBodyBytes: (@Sendable (RequestContext) -> Int?)?,
        responder: @escaping Responder
    ) {
        self.resetAfterBodyBytes = resetAfterBodyBytes
        self.time = time ?? LoopTimeSource(fallbackLoop: group.loops[0])
        self.group = group
        self.configuration = configuration
        self.answerObserver = answered
        self.responder = responder
    }

    /// Binds every loop's listener and returns the port (the one picked by the kernel when the
    /// configuration asks for port 0).
    @discardableResult
    package func start() async throws -> Int {
        var port = configuration.port
        if port != 0 {
            // Without this, a second process on the port would bind it too (see PortProbe).
            _ = try PortProbe.bindOnce(try SocketAddress(ip: configuration.host, port: port))
        }
        var servers: [LoopBound<LoopServer>] = []
        for loop in group.loops {
            let chosenPort = port
            let server = try await Task(executorPreference: loop) { [self] () throws -> LoopBound<LoopServer> in
                let server = LoopServer(loop: loop, server: self)
                try server.listen(host: configuration.host, port: chosenPort)
                return LoopBound(server, loop: loop)
            }.value
            port = await Task(executorPreference: loop) { server.value.port }.value
            servers.append(server)
        }
        loopServers.withLock { $0 = servers }
        boundPort.store(port, ordering: .relaxed)
        return port
    }

    /// The port the listeners are bound to (0 before `start`).
    package var port: Int { boundPort.load(ordering: .relaxed) }

    /// True once shutdown has begun: readiness checks should fail.
    package var isDraining: Bool { draining.load(ordering: .relaxed) }

    package var openConnections: Int { connections.open }

    /// Requests whose handlers are running now.
    package var inFlightRequests: Int { requests.count }

    /// Requests refused with `503` because `maxInFlightRequests` were running, since start.
    package var overloadRefusals: Int { requests.refusedCount }

    /// Reports not-ready from now on (`isDraining`) while still accepting: answers carry
    /// `Connection: close`, so clients move elsewhere before the listeners close.
    package func beginDraining() {
        draining.store(true, ordering: .relaxed)
    }

    /// Stops accepting, lets requests in progress finish for up to `grace`, then closes whatever
    /// is left. Idle keep-alive connections close at once, or once an answer still queued for
    /// them is written; busy ones close after their answer (and after the pipelined requests
    /// they had already received). A request still waiting for its handler, or still arriving,
    /// when the grace period ends is answered `503` with `Connection: close`. What connections
    /// still have to write then (those answers, others queued for slow readers) has
    /// `shutdownWriteTimeout`, after which they are reset: so the shutdown lasts at most `grace`
    /// plus that, whatever the clients do.
    /// - Returns: how many requests were cut short that way.
    @discardableResult
    package func shutdown(grace: Duration) async -> Int {
        beginDraining()
        let servers = loopServers.withLock { $0 }
        // Every listener closes before any connection drains, so once a client sees its idle
        // connection close, no loop accepts anymore.
        for server in servers {
            await Task(executorPreference: server.loop) { server.value.stopAccepting() }.value
        }
        for server in servers {
            await Task(executorPreference: server.loop) { server.value.drainConnections() }.value
        }
        let time = self.time
        await withTaskGroup(of: Void.self) { tasks in
            tasks.addTask { await self.connections.waitUntilNoneOpen() }
            tasks.addTask { try? await time.sleep(for: grace) }
            await tasks.next()
            tasks.cancelAll()
        }
        var cutShort = 0
        for server in servers {
            cutShort += await Task(executorPreference: server.loop) { server.value.closeAll() }.value
        }
        await connections.waitUntilNoneOpen()
        return cutShort
    }
}
