import EventLoop
import HTTP1

/// The keep-alive connections of one loop to one origin: at most `maxConnectionsPerOrigin`,
/// idle ones reused most-recent-first, and a FIFO of requests waiting when all are busy.
/// Loop-confined.
final class ConnectionPool {
    typealias Handler = (Result<ClientConnection, HTTPClientError>) -> Void

    let loop: EventLoop
    let origin: Origin
    private let configuration: HTTPClientConfiguration
    private let statistics: ClientStatistics
    private var idle: [ClientConnection] = []
    /// Connections open or being opened.
    private var open = 0
    private var waiters: [(id: Int, handler: Handler)] = []
    private var nextWaiterID = 0
    private var addresses: [SocketAddress] = []
    private var isShutDown = false
    /// Stopped deadline timers of finished exchanges, for the next ones: a timer opened and closed
    /// per request cost four allocations and a close callback on every upstream call.
    private var spareTimers: [LoopTimer] = []
    private static let maxSpareTimers = 256

    init(loop: EventLoop, origin: Origin, configuration: HTTPClientConfiguration, statistics: ClientStatistics) {
        self.loop = loop
        self.origin = origin
        self.configuration = configuration
        self.statistics = statistics
    }

    /// Hands `handler` a connection: an idle one now, a new one once connected, or a released one
    /// later. Returns the waiter id when the request had to queue, for `cancelWaiter`.
    func acquire(_ handler: @escaping Handler) -> Int? {
        guard !isShutDown else {
            handler(.failure(.shutdown))
            return nil
        }
        while let connection = idle.popLast() {
            if connection.isUsable {
                handler(.success(connection))
                return nil
            }
        }
        if open < configuration.maxConnectionsPerOrigin {
            open += 1
            connect(handler)
            return nil
        }
        nextWaiterID += 1
        waiters.append((nextWaiterID, handler))
        return nextWaiterID
    }

    func cancelWaiter(_ id: Int) {
        waiters.removeAll { $0.id == id }
    }

    /// Returns a connection after its exchange; one that cannot be reused is already closing and
    /// is accounted for by its close callback.
    func release(_ connection: ClientConnection) {
        guard connection.isUsable else { return }
        if !waiters.isEmpty {
            let waiter = waiters.removeFirst()
            waiter.handler(.success(connection))
            return
        }
        if isShutDown {
            connection.close()
            return
        }
        idle.append(connection)
        connection.parkIdle(for: configuration.idleTimeout)
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
        if isShutDown || timer.isClosing || spareTimers.count >= Self.maxSpareTimers {
            timer.cancel()
        } else {
            spareTimers.append(timer)
        }
    }

    func shutdown() {
        isShutDown = true
        for timer in spareTimers { timer.cancel() }
        spareTimers.removeAll()
        let waiting = waiters
        waiters.removeAll()
        for waiter in waiting { waiter.handler(.failure(.shutdown)) }
        for connection in idle { connection.close() }
        idle.removeAll()
    }

    private func connectionClosed(_ connection: ClientConnection) {
        statistics.socketClosed()
        open -= 1
        idle.removeAll { $0 === connection }
        startConnectionForFirstWaiter()
    }

    private func startConnectionForFirstWaiter() {
        guard !waiters.isEmpty, open < configuration.maxConnectionsPerOrigin, !isShutDown else { return }
        let waiter = waiters.removeFirst()
        open += 1
        connect(waiter.handler)
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
                let connection = ClientConnection(stream: stream, maxResponseBytes: configuration.maxResponseBytes)
                connection.onClosed = { [weak self] closed in self?.connectionClosed(closed) }
                if isShutDown {
                    connection.close()
                    handler(.failure(.shutdown))
                } else {
                    handler(.success(connection))
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
        open -= 1
        handler(.failure(error))
        startConnectionForFirstWaiter()
    }
}
