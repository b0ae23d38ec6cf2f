import EventLoop
import HTTP1
import Timekeeping

/// The keep-alive connections of one loop to one origin for one pool name, as
/// `ConnectionPoolStateMachine` decides: this shell opens and closes the sockets and calls the
/// requests' handlers. Loop-confined.
final class ConnectionPool {
    typealias Handler = (Result<ClientConnection, HTTPClientError>) -> Void
    private typealias Machine = ConnectionPoolStateMachine<ObjectIdentifier>

    let loop: EventLoop
    let origin: Origin
    /// The pool name its requests gave (an upstream's name).
    let name: String
    private let configuration: HTTPClientConfiguration
    private let statistics: ClientStatistics
    private let time: any TimeSource
    private var machine: Machine
    /// The connections that have connected and not yet closed.
    private var connections: [ObjectIdentifier: ClientConnection] = [:]
    /// The handlers of waiting requests.
    private var waiting: [Machine.RequestID: Handler] = [:]
    private var nextRequestID = 0
    private var addresses: [SocketAddress] = []
    /// Stopped deadline timers of finished exchanges, for the next ones: a timer opened and closed
    /// per request cost allocations and a close callback on every upstream call.
    private var spareTimers: [LoopTimer] = []
    private static let maxSpareTimers = 256

    init(
        loop: EventLoop, origin: Origin, name: String, configuration: HTTPClientConfiguration, statistics: ClientStatistics,
        time: any TimeSource
    ) {
        self.loop = loop
        self.origin = origin
        self.name = name
        self.configuration = configuration
        self.statistics = statistics
        self.time = time
        machine = Machine(maxConnections: configuration.maxConnectionsPerPool)
    }

    /// Hands `handler` a connection: an idle one now, a new one once connected, or a released one
    /// later. Returns the request's id when it had to wait, for `cancelWaiter`.
    func acquire(_ handler: @escaping Handler) -> Int? {
        nextRequestID += 1
        let request = nextRequestID
        switch machine.acquire(request) {
        case .lease(let id):
            handler(.success(connections[id]!))
        case .connect:
            connect(handler)
        case .wait:
            waiting[request] = handler
            statistics.requestQueued()
            return request
        case .refuse:
            handler(.failure(.shutdown))
        }
        return nil
    }

    func cancelWaiter(_ id: Int) {
        machine.cancel(id)
        _ = takeWaiter(id)
    }

    /// Returns a connection after its exchange; one that cannot be reused is already closing and
    /// is accounted for by its close callback.
    func release(_ connection: ClientConnection) {
        guard connection.isUsable else { return }
        switch machine.released(ObjectIdentifier(connection)) {
        case .hand(let request):
            takeWaiter(request)?(.success(connection))
        case .park:
            connection.parkIdle(for: configuration.idleTimeout)
        case .close:
            connection.close()
        }
    }

    /// A stopped timer for an exchange's deadline; give it back with `recycle(_:)`.
    func deadlineTimer() -> LoopTimer {
        while let timer = spareTimers.popLast() {
            if !timer.isClosing { return timer }
        }
        return LoopTimer(loop: loop)
    }

    /// Stops `timer` and keeps it for the next exchange (the caller must not touch it again).
    func recycle(_ timer: LoopTimer) {
        timer.stop()
        if machine.isShutDown || timer.isClosing || spareTimers.count >= Self.maxSpareTimers {
            timer.cancel()
        } else {
            spareTimers.append(timer)
        }
    }

    /// Fails every request waiting for a connection; requests on a connection, or on one being
    /// opened for them, go on.
    func dropWaiting() {
        fail(machine.dropWaiting(), with: .dropped(pool: name))
    }

    func shutdown() {
        for timer in spareTimers { timer.cancel() }
        spareTimers.removeAll()
        let (refused, idle) = machine.shutDown()
        fail(refused, with: .shutdown)
        for id in idle { connections[id]?.close() }
    }

    private func fail(_ requests: [Machine.RequestID], with error: HTTPClientError) {
        for request in requests { takeWaiter(request)?(.failure(error)) }
    }

    private func closed(_ connection: ClientConnection) {
        statistics.socketClosed()
        connections[ObjectIdentifier(connection)] = nil
        if let request = machine.closed(ObjectIdentifier(connection)) { connectForWaiting(request) }
    }

    /// The handler of a request leaving the queue, or nil when it already left.
    private func takeWaiter(_ request: Machine.RequestID) -> Handler? {
        guard let handler = waiting.removeValue(forKey: request) else { return nil }
        statistics.requestLeftQueue()
        return handler
    }

    private func connectForWaiting(_ request: Machine.RequestID) {
        guard let handler = takeWaiter(request) else { return }
        connect(handler)
    }

    private func connect(_ handler: @escaping Handler) {
        if addresses.isEmpty {
            Resolver.resolve(host: origin.host, port: origin.port, on: loop) { [self] result in
                switch result {
                case .success(let resolved):
                    addresses = resolved
                    connect(to: resolved[0], handler)
                case .failure(let error):
                    connectFailed(.connectFailed(error), handler)
                }
            }
        } else {
            connect(to: addresses[0], handler)
        }
    }

    private func connect(to address: SocketAddress, _ handler: @escaping Handler) {
        let timer = LoopTimer(loop: loop)
        var timedOut = false
        statistics.socketOpening()
        let stream = TCPStream.connect(to: address, on: loop) { [self] result in
            timer.cancel()
            switch result {
            case .success(let stream):
                statistics.connectionOpened()
                let connection = ClientConnection(stream: stream, maxResponseBytes: configuration.maxResponseBytes, time: time)
                connections[ObjectIdentifier(connection)] = connection
                connection.onClosing = { [weak self] closing in self?.machine.closing(ObjectIdentifier(closing)) }
                connection.onClosed = { [weak self] closed in self?.closed(closed) }
                switch machine.connected(ObjectIdentifier(connection)) {
                case .use:
                    handler(.success(connection))
                case .closeAndRefuse:
                    connection.close()
                    handler(.failure(.shutdown))
                }
            case .failure(let error):
                // The stream closed its socket before reporting the failure.
                statistics.socketClosed()
                // A failed connect may mean the name now resolves elsewhere: resolve again next time.
                addresses.removeAll()
                connectFailed(timedOut ? .connectTimeout : .connectFailed(error), handler)
            }
        }
        if let stream {
            timer.start(after: configuration.connectTimeout) {
                timedOut = true
                stream.close()
            }
        } else {
            timer.cancel()
        }
    }

    private func connectFailed(_ error: HTTPClientError, _ handler: Handler) {
        let next = machine.connectFailed()
        handler(.failure(error))
        if let next { connectForWaiting(next) }
    }
}
