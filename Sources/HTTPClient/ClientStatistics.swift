import Synchronization

/// Counters of the client's work, for tests, benchmarks and metrics.
public struct HTTPClientStatistics: Sendable, Equatable {
    /// TCP connections opened since start.
    public var connectionsOpened: Int
    /// Requests sent, including those that went out again on a fresh connection.
    public var requestsSent: Int
}

final class ClientStatistics: Sendable {
    private let opened = Atomic<Int>(0)
    private let sent = Atomic<Int>(0)

    func connectionOpened() { opened.wrappingAdd(1, ordering: .relaxed) }
    func requestSent() { sent.wrappingAdd(1, ordering: .relaxed) }

    var snapshot: HTTPClientStatistics {
        HTTPClientStatistics(connectionsOpened: opened.load(ordering: .relaxed), requestsSent: sent.load(ordering: .relaxed))
    }
}
