import CLibUV

/// The loop is the task executor that request handlers prefer, so a handler and everything
/// nonisolated it awaits run on the loop thread; its `serialExecutor` runs loop-bound actors.
extension EventLoop: TaskExecutor, SerialExecutor {
    package func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        if !submit(.job(unowned)) {
            // The loop has stopped: let the global pool finish the job rather than lose the task.
            globalConcurrentExecutor.enqueue(unowned)
        }
    }

    package func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    /// Actors that name the loop as their executor are run by its companion serial executor.
    package func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        serialExecutor.asUnownedSerialExecutor()
    }

    package func checkIsolated() {
        precondition(inLoop, "expected to run on event loop \(index)")
    }
}

/// Runs the jobs of actors bound to an event loop, on that loop's thread, in order.
package final class LoopSerialExecutor: SerialExecutor {
    package unowned let loop: EventLoop

    init(loop: EventLoop) {
        self.loop = loop
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        if !loop.submit(.actorJob(unowned)) {
            preconditionFailure("an actor bound to event loop \(loop.index) was used after the loop stopped")
        }
    }

    package func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    package func isSameExclusiveExecutionContext(other: LoopSerialExecutor) -> Bool {
        other === self
    }

    package func checkIsolated() {
        precondition(loop.inLoop, "expected to run on event loop \(loop.index)")
    }
}
