/// The rules of one loop's keep-alive connections to one origin for one pool name, without the
/// connections: at most `maxConnections` open or opening, idle ones reused most recent first,
/// requests waiting in arrival order when every connection is busy, which waiting requests a drop
/// fails, and what shutting down refuses and closes.
///
/// Each event returns what to do; `ConnectionPool` does it (opens sockets, hands connections to
/// requests, closes them). Pure, so every rule is tested with plain values.
struct ConnectionPoolStateMachine<ConnectionID: Hashable & Sendable>: Sendable {
    typealias RequestID = Int

    /// What a request asking for a connection gets.
    enum AcquireAction: Equatable, Sendable {
        /// This idle connection, now.
        case lease(ConnectionID)
        /// A new connection, opened for it.
        case connect
        /// Nothing yet: it waits until a connection is released or closes.
        case wait
        /// Nothing ever: the pool is shut down.
        case refuse
    }

    /// What becomes of a connection whose exchange ended and that can carry another.
    enum ReleaseAction: Equatable, Sendable {
        /// It goes to the request that waited longest.
        case hand(to: RequestID)
        /// It waits for the next request (its idle timer runs).
        case park
        /// It closes: the pool is shut down.
        case close
    }

    /// What becomes of a connection that has just connected for a request.
    enum ConnectedAction: Equatable, Sendable {
        /// The request it was opened for uses it.
        case use
        /// It closes and the request is refused: the pool shut down while it connected.
        case closeAndRefuse
    }

    let maxConnections: Int
    /// Idle connections, the most recently released last.
    private(set) var idle: [ConnectionID] = []
    /// Connections open or being opened.
    private(set) var open = 0
    /// Requests waiting for a connection, oldest first.
    private(set) var waiting: [RequestID] = []
    private(set) var isShutDown = false

    init(maxConnections: Int) {
        precondition(maxConnections > 0, "a pool needs room for one connection")
        self.maxConnections = maxConnections
    }

    mutating func acquire(_ request: RequestID) -> AcquireAction {
        if isShutDown { return .refuse }
        if let connection = idle.popLast() { return .lease(connection) }
        if open < maxConnections {
            open += 1
            return .connect
        }
        waiting.append(request)
        return .wait
    }

    /// The request stopped waiting (its deadline passed, or it was cancelled).
    mutating func cancel(_ request: RequestID) {
        if let index = waiting.firstIndex(of: request) { waiting.remove(at: index) }
    }

    /// The waiting requests are given up on (their upstream's circuit breaker opened): returns
    /// them, oldest first, to be failed. Connections open, opening or idle stay as they are, so a
    /// connection released later parks, or goes to a request that came after the drop.
    mutating func dropWaiting() -> [RequestID] {
        defer { waiting.removeAll() }
        return waiting
    }

    /// A connection came back from an exchange, ready for another (one that is closing is not
    /// released: its `closed` event comes instead).
    mutating func released(_ connection: ConnectionID) -> ReleaseAction {
        if !waiting.isEmpty { return .hand(to: waiting.removeFirst()) }
        if isShutDown { return .close }
        idle.append(connection)
        return .park
    }

    mutating func connected(_ connection: ConnectionID) -> ConnectedAction {
        isShutDown ? .closeAndRefuse : .use
    }

    /// Opening a connection failed (its request is told by whoever opened it). Returns the
    /// request to open a connection for in its place, if one waits.
    mutating func connectFailed() -> RequestID? {
        open -= 1
        return connectForFirstWaiting()
    }

    /// The connection began closing (the server closed it, its idle time ran out, an exchange
    /// failed): it is never leased again.
    mutating func closing(_ connection: ConnectionID) {
        if let index = idle.lastIndex(of: connection) { idle.remove(at: index) }
    }

    /// The connection's socket is closed: its place is free. Returns the request to open a
    /// connection for in its place, if one waits.
    mutating func closed(_ connection: ConnectionID) -> RequestID? {
        closing(connection)
        open -= 1
        return connectForFirstWaiting()
    }

    /// From now on every request is refused; returns the waiting requests to refuse and the
    /// idle connections to close.
    mutating func shutDown() -> (refused: [RequestID], close: [ConnectionID]) {
        isShutDown = true
        defer {
            waiting.removeAll()
            idle.removeAll()
        }
        return (waiting, idle)
    }

    private mutating func connectForFirstWaiting() -> RequestID? {
        guard !waiting.isEmpty, open < maxConnections, !isShutDown else { return nil }
        open += 1
        return waiting.removeFirst()
    }
}
