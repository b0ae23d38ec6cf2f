/// What the stub decides about one exchange beyond its answer, attached to the request's context
/// (its `attachment`) and read back by the server's fault hook when the answer is
/// written: the fault stays in the stub, not in the server's types.
///
/// `@unchecked Sendable`: `resetAfterBodyBytes` is written by the request's handler task before
/// it returns its answer, and read on the connection's loop after that answer arrived (the task's
/// completion orders the two); nothing else touches it.
final class StubExchange: @unchecked Sendable {
    /// Write the head and only this many body bytes, then reset the connection, as a peer that
    /// dies mid-answer would. Nil for every whole answer.
    var resetAfterBodyBytes: Int?
}
