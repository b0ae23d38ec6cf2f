import EventLoop
import HTTP1

/// One request from acquiring a connection to its answer, bounded by a deadline. Resumes its
/// continuation exactly once: with the answer, a failure, or `cancelled`. `finish` is the one
/// place that resumes it, and clears it first, so an unchecked continuation does (a checked one
/// cost an allocation per upstream call).
///
/// `@unchecked Sendable`: every field is touched only on `loop`'s thread; the cancellation handler
/// reaches the exchange through `loop.execute`.
final class RequestExchange: @unchecked Sendable {
    typealias Outcome = Result<HTTPClientResponse, HTTPClientError>

    private let loop: EventLoop
    private let pool: ConnectionPool
    private let statistics: ClientStatistics
    private let bytes: [UInt8]
    private let method: HTTPMethod
    private let timeout: Duration
    private var continuation: UnsafeContinuation<Outcome, Never>?
    private var waiterID: Int?
    private var connection: ClientConnection?
    private var timer: LoopTimer?
    private var staleRetries = 0

    init(loop: EventLoop, pool: ConnectionPool, statistics: ClientStatistics, bytes: [UInt8], method: HTTPMethod, timeout: Duration) {
        self.loop = loop
        self.pool = pool
        self.statistics = statistics
        self.bytes = bytes
        self.method = method
        self.timeout = timeout
    }

    func start(_ continuation: UnsafeContinuation<Outcome, Never>) {
        precondition(loop.inLoop)
        self.continuation = continuation
        let timer = pool.deadlineTimer()
        self.timer = timer
        // Never early: a timer that fired before the caller's deadline would leave it time to
        // retry into a request that cannot succeed.
        let now = ContinuousClock.now
        timer.start(at: now + timeout, now: now) { [self] in abort(.timedOut) }
        acquireAndSend()
    }

    /// Gives up: a queued request leaves the queue; a request on the wire closes its connection,
    /// which is never reused.
    func abort(_ error: HTTPClientError) {
        guard continuation != nil else { return }
        if let waiterID { pool.cancelWaiter(waiterID) }
        waiterID = nil
        connection?.abort()
        connection = nil
        finish(.failure(error))
    }

    private func acquireAndSend() {
        let queued = pool.acquire { [self] result in
            waiterID = nil
            switch result {
            case .failure(let error):
                finish(.failure(error))
            case .success(let acquired):
                guard continuation != nil else {
                    pool.release(acquired)
                    return
                }
                send(on: acquired)
            }
        }
        if let queued, continuation != nil { waiterID = queued }
    }

    private func send(on acquired: ClientConnection) {
        connection = acquired
        statistics.requestSent()
        acquired.send(bytes, method: method) { [self] result in
            connection = nil
            switch result {
            case .success(let response):
                pool.release(acquired)
                finish(.success(response))
            case .failure(.stale) where staleRetries < 2:
                // The server had closed this idle connection; nothing of the request was
                // answered, so it goes out again on another connection.
                staleRetries += 1
                acquireAndSend()
            case .failure(.stale):
                finish(.failure(.reset("the server closed every pooled connection")))
            case .failure(.failed(let error)):
                finish(.failure(error))
            }
        }
    }

    private func finish(_ outcome: Outcome) {
        if let timer { pool.recycle(timer) }
        timer = nil
        guard let continuation else { return }
        self.continuation = nil
        continuation.resume(returning: outcome)
    }
}
