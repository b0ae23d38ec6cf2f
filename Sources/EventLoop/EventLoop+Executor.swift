import CLibUV

/// The loop is both the serial executor of loop-bound actors and the task executor that request
/// handlers prefer, so a handler and everything nonisolated it awaits run on the loop thread.
extension EventLoop: SerialExecutor, TaskExecutor {
    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        if !submit(.job(unowned)) {
            // The loop has stopped: let the global pool finish the job rather than lose the task.
            globalConcurrentExecutor.enqueue(unowned)
        }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    public func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    public func isSameExclusiveExecutionContext(other: EventLoop) -> Bool {
        other === self
    }

    public func checkIsolated() {
        precondition(inLoop, "expected to run on event loop \(index)")
    }
}
