import RESP

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
