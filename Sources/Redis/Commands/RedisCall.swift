import EventLoop
import RESP

/// One command sent on a connection, from submission to its one outcome: the reply, a failure, or
/// `.cancelled`. Its waiter is a callback run on the loop: `RedisClient.send`'s own, or the
/// resumption of a task waiting in ``LoopOperation/value()`` (`RedisClient.run`). `finish` is the
/// only place that answers the waiter, and clears it first, so it answers exactly once whichever
/// of the reply, the deadline and cancellation comes first.
///
/// A call the client made for its caller (``RedisClient/send(_:deadline:completion:)``, `run`)
/// carries its ``Follower``: the reply goes to the client first, which learns a redirect from it
/// and follows it before the waiter hears the answer. One object per command either way.
///
/// `@unchecked Sendable`: `waiter`, `id`, `isCancelled` and `following` are touched only on
/// `connection.loop`'s thread; the cancellation handler reaches the call through `loop.execute`.
final class RedisCall: LoopOperation, @unchecked Sendable {
    typealias Outcome = Result<RESPValue, RedisClientError>

    let connection: RedisCommandConnection
    private let request: RedisRequest
    private let deadline: Duration
    private var waiter: LoopCompletion<Outcome>?
    /// Set once submitted: names the call to the machine.
    private(set) var id: RedisRequestID?
    private var isCancelled = false
    /// The task that follows this call's redirect (`RedisClient.send`), cancelled with it.
    var following: Task<Void, Never>?
    /// When `start` ran, on the client's time line, for the latency reported.
    private var startedAt = Duration.zero
    /// Set for a call the client made for its caller: what follows its reply.
    let follower: Follower?

    /// What the client needs to carry a caller's command on from its first reply.
    struct Follower {
        let client: RedisClient
        /// The command's cluster state after its first send.
        let cluster: RedisClusterCall
        let node: RedisNodeAddress
        /// The loop the caller is on (or `loops[0]`'s, off a loop).
        let loopIndex: Int
    }

    init(connection: RedisCommandConnection, request: RedisRequest, deadline: Duration, follower: Follower? = nil) {
        self.connection = connection
        self.request = request
        self.deadline = deadline
        self.follower = follower
    }

    var loop: EventLoop { connection.loop }
    var refused: Outcome { .failure(.shutdown) }

    /// Sends the request with `completion` as its waiter: it runs on the loop, perhaps before
    /// this returns (a connection that cannot take the command fails it at once).
    func start(_ completion: LoopCompletion<Outcome>) {
        precondition(connection.loop.inLoop)
        self.waiter = completion
        startedAt = connection.time.now
        if isCancelled {
            finish(.failure(.cancelled), at: startedAt)
            return
        }
        id = connection.submit(self, request: request, deadline: deadline, now: startedAt)
    }

    /// The caller's task was cancelled: it is answered now, and the machine told to throw the
    /// reply away when it comes.
    func cancel() {
        precondition(connection.loop.inLoop)
        isCancelled = true
        following?.cancel()
        guard waiter != nil else { return }
        if let id { connection.cancel(id) }
        finish(.failure(.cancelled), at: connection.time.now)
    }

    /// Answers the waiter, the call having ended at `now` (on the connection's time line).
    func finish(_ outcome: Outcome, at now: Duration) {
        guard let waiter = waiter.take() else { return }
        connection.observer.commandFinished(now - startedAt, RedisCommandOutcome(outcome))
        if let follower {
            follower.client.replied(outcome, to: self, follower, waiter: waiter)
        } else {
            waiter(outcome)
        }
    }
}

/// How one `run` call ended, for metrics.
package enum RedisCommandOutcome: Sendable, Equatable {
    /// A reply that is not an error.
    case reply
    /// An error reply (`-WRONGTYPE …`): Redis answered, the command did not do its work.
    case errorReply
    /// No reply before the caller's deadline.
    case timedOut
    /// No reply, for another reason (not connected, connection lost, cancelled, shut down).
    case failed(RedisClientError)

    init(_ result: Result<RESPValue, RedisClientError>) {
        switch result {
        case .success(let reply): self = reply.isError ? .errorReply : .reply
        case .failure(let error): self = error == .timedOut ? .timedOut : .failed(error)
        }
    }
}
