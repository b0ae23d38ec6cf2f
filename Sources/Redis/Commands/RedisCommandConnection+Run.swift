extension RedisCommandConnection {
    /// Runs `request` on this connection from any thread: on its loop at once, else through
    /// `loop.execute`. A cancelled caller is resumed at once with `.cancelled`; its reply is
    /// later read and dropped, so the pipeline stays in step.
    func run(_ request: RedisRequest, deadline: Duration) async -> RedisCall.Outcome {
        let call = RedisCall(connection: self)
        let loop = self.loop
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<RedisCall.Outcome, Never>) in
                if loop.inLoop {
                    call.start(continuation, request: request, deadline: deadline)
                } else if !loop.execute({ call.start(continuation, request: request, deadline: deadline) }) {
                    continuation.resume(returning: .failure(.shutdown))
                }
            }
        } onCancel: {
            loop.execute { call.cancel() }
        }
    }
}
