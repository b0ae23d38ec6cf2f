/// One operation that runs on an event loop and ends in one value passed to a callback: the form
/// a caller on the loop uses with no task (a reply read on this loop answers it there and then).
/// ``value()`` is the async form of the same operation, for a caller in a task on any thread: the
/// one adapter between the two, so that an operation is written once, as its callback form.
///
/// `start` and `cancel` are called on `loop` only. `start` delivers to `completion` exactly once,
/// on `loop`, perhaps before it returns; `cancel` after `start` makes it deliver at once (the
/// operation's cancelled value) unless it has already.
package protocol LoopOperation: AnyObject, Sendable {
    associatedtype Value: Sendable

    var loop: EventLoop { get }
    /// What the operation ends in when its loop cannot run it (the loop has stopped).
    var refused: Value { get }

    func start(_ completion: LoopCompletion<Value>)
    func cancel()
}

/// Where a ``LoopOperation``'s value goes: a callback, or the continuation of a task waiting in
/// ``LoopOperation/value()``, resumed as it is (a closure around it would be one more allocation
/// for every operation awaited).
package enum LoopCompletion<Value: Sendable>: Sendable {
    case callback(@Sendable (Value) -> Void)
    case resumption(UnsafeContinuation<Value, Never>)

    package func callAsFunction(_ value: Value) {
        switch self {
        case .callback(let callback): callback(value)
        case .resumption(let continuation): continuation.resume(returning: value)
        }
    }
}

extension LoopOperation {
    /// Starts the operation on its loop (at once when already there) and waits for its value. A
    /// cancelled task cancels it on its loop, so the caller is resumed with its cancelled value
    /// without waiting for what it waited on.
    package func value() async -> Value {
        let loop = self.loop
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Value, Never>) in
                if loop.inLoop {
                    start(.resumption(continuation))
                } else if !loop.execute({ self.start(.resumption(continuation)) }) {
                    continuation.resume(returning: refused)
                }
            }
        } onCancel: {
            _ = loop.execute { self.cancel() }
        }
    }
}
