import EventLoop
import RESP

/// One `RedisClient.run` call, from submission to its one outcome: the reply, a failure, or
/// `.cancelled`. `finish` is the only place that resumes the continuation, and clears it first,
/// so it resumes exactly once whichever of the reply, the deadline and cancellation comes first.
///
/// `@unchecked Sendable`: `continuation`, `id` and `isCancelled` are touched only on
/// `connection.loop`'s thread; the cancellation handler reaches the call through `loop.execute`.
final class RedisCall: @unchecked Sendable {
    typealias Outcome = Result<RESPValue, RedisClientError>

    let connection: RedisCommandConnection
    private var continuation: UnsafeContinuation<Outcome, Never>?
    /// Set once submitted: names the call to the machine.
    private(set) var id: RedisRequestID?
    private var isCancelled = false
    /// When `start` ran, on the client's time line, for the latency reported.
    private var startedAt = Duration.zero

    init(connection: RedisCommandConnection) {
        self.connection = connection
    }

    func start(_ continuation: UnsafeContinuation<Outcome, Never>, request: RedisRequest, deadline: Duration) {
        precondition(connection.loop.inLoop)
        self.continuation = continuation
        startedAt = connection.time.now
        if isCancelled {
            finish(.failure(.cancelled))
            return
        }
        id = connection.submit(self, request: request, deadline: deadline)
    }

    /// The caller's task was cancelled: it is answered now, and the machine told to throw the
    /// reply away when it comes.
    func cancel() {
        precondition(connection.loop.inLoop)
        isCancelled = true
        guard continuation != nil else { return }
        if let id { connection.cancel(id) }
        finish(.failure(.cancelled))
    }

    func finish(_ outcome: Outcome) {
        guard let continuation else { return }
        self.continuation = nil
        connection.observer.commandFinished(connection.time.now - startedAt, RedisCommandOutcome(outcome))
        continuation.resume(returning: outcome)
    }
}
