import EventLoop
import HTTP1

/// The server's share of one loop: its listener and its connections. Loop-confined.
final class LoopServer {
    let loop: EventLoop
    unowned let server: HTTPServer
    let dates = HTTPDateCache()
    private var listener: TCPListener?
    private var connections: [ObjectIdentifier: HTTPConnection] = [:]
    private(set) var port = 0

    init(loop: EventLoop, server: HTTPServer) {
        self.loop = loop
        self.server = server
    }

    var configuration: ServerConfiguration { server.configuration }
    var isDraining: Bool { server.isDraining }

    func listen(host: String, port: Int) throws {
        let address = try SocketAddress(ip: host, port: port)
        let listener = try TCPListener(
            loop: loop, address: address, backlog: configuration.listenBacklog, reusePort: true
        ) { [unowned self] stream in accept(stream) }
        self.listener = listener
        self.port = listener.port
    }

    private func accept(_ stream: TCPStream) {
        guard server.connections.admit(limit: configuration.maxConnections) else {
            stream.close()
            return
        }
        if configuration.edgeTriggeredPolling { stream.pollEdgeTriggered() }
        let connection = HTTPConnection(stream: stream, owner: self)
        connections[ObjectIdentifier(connection)] = connection
        connection.start()
    }

    func connectionClosed(_ connection: HTTPConnection) {
        if connections.removeValue(forKey: ObjectIdentifier(connection)) != nil {
            server.connections.release()
        }
    }

    func stopAccepting() {
        listener?.close()
        listener = nil
    }

    /// Idle connections close now (or once their queued output is written), busy ones after
    /// their current answer.
    func drainConnections() {
        for connection in connections.values { connection.drain() }
    }

    /// Closes every connection (the end of the grace period) once its output is written, within
    /// `shutdownWriteTimeout`: a request still waiting for its handler, or still arriving, gets
    /// a `503` first. Returns how many did.
    func closeAll() -> Int {
        var cutShort = 0
        for connection in connections.values where connection.cutShort() { cutShort += 1 }
        return cutShort
    }
}
