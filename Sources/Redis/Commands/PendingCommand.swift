import RESP

/// One request waiting for its reply, or waiting to be written while the connection opens.
struct PendingCommand: Sendable {
    let id: RedisRequestID
    let request: RedisRequest
    /// When the caller stops waiting.
    let deadline: Duration
    /// When its bytes were handed to the shell: how long the pipeline has been stuck on it.
    var writtenAt: Duration
    /// The caller was already failed (its deadline passed): the reply still takes this slot
    /// when it comes, so later replies stay matched, and is thrown away.
    var isAbandoned = false
    /// This is the `EVAL` sent after `NOSCRIPT`: its reply, whatever it is, goes to the caller.
    var isReload = false
    /// Replies still to come before the request's own (`ASKING`'s, a transaction's `OK` and
    /// `QUEUED`s), dropped as they come.
    var leadingReplies: Int
    /// The first of those that was an error: what the caller gets instead of the request's own
    /// reply when that is an error too (a transaction's `EXECABORT` says only that one was).
    var leadingError: RESPValue?

    init(id: RedisRequestID, request: RedisRequest, deadline: Duration, writtenAt: Duration) {
        self.id = id
        self.request = request
        self.deadline = deadline
        self.writtenAt = writtenAt
        leadingReplies = request.leadingReplies
    }
}
