import Synchronization

/// Counters of the client's work, for tests, benchmarks and metrics.
package struct HTTPClientStatistics: Sendable, Equatable {
    /// TCP connections opened since start.
    package var connectionsOpened: Int
    /// Requests sent, including those that went out again on a fresh connection.
    package var requestsSent: Int
    /// Sockets open now, connecting ones included, over every loop and pool.
    package var openConnections: Int
    /// The most sockets open at once since start.
    package var peakOpenConnections: Int
    /// Requests waiting now for a connection (their pool is at its limit), over every loop.
    package var waitingRequests: Int
}

final class ClientStatistics: Sendable {
    private let opened = Atomic<Int>(0)
    private let sent = Atomic<Int>(0)
    private let open = Atomic<Int>(0)
    private let peakOpen = Atomic<Int>(0)
    private let waiting = Atomic<Int>(0)

    func connectionOpened() { opened.wrappingAdd(1, ordering: .relaxed) }
    func requestSent() { sent.wrappingAdd(1, ordering: .relaxed) }

    /// Called before a socket is created, and `socketClosed` only once its descriptor is closed:
    /// the count is never below the sockets really open, so its peak is an upper bound of theirs.
    func socketOpening() {
        let now = open.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue
        var peak = peakOpen.load(ordering: .relaxed)
        while now > peak {
            let exchanged = peakOpen.compareExchange(expected: peak, desired: now, ordering: .relaxed)
            if exchanged.exchanged { break }
            peak = exchanged.original
        }
    }

    func socketClosed() { open.wrappingSubtract(1, ordering: .sequentiallyConsistent) }

    func requestQueued() { waiting.wrappingAdd(1, ordering: .relaxed) }
    func requestLeftQueue() { waiting.wrappingSubtract(1, ordering: .relaxed) }

    var snapshot: HTTPClientStatistics {
        HTTPClientStatistics(
            connectionsOpened: opened.load(ordering: .relaxed), requestsSent: sent.load(ordering: .relaxed),
            openConnections: open.load(ordering: .relaxed), peakOpenConnections: peakOpen.load(ordering: .relaxed),
            waitingRequests: waiting.load(ordering: .relaxed))
    }
}
