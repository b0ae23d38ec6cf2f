import Locking
import Timekeeping

/// Runs one route's ``WorkerPool`` on the event loops: handlers wait in `serve()` on a
/// continuation, and each service end is a timer on the time source (a libuv timer through
/// `LoopTimeSource` in the stub), so no loop ever blocks on a worker.
///
/// One pool per route, shared by every loop under a short lock, rather than one per loop with
/// the workers split between them: a thread-pool backend has one queue per route, and split
/// pools would leave one loop's requests queued while another loop's workers sit idle, so the
/// capacity would depend on how the kernel spread the connections. The lock is held for a few
/// dictionary operations per event, a few thousand times a second at most.
final class RouteWorkers: Sendable {
    private struct State {
        var pool: WorkerPool
        /// Handlers waiting for their service to end, by ticket number.
        var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
        /// Served before their handler got as far as waiting (a service time of zero, or a timer
        /// on another loop): the handler finds its answer here.
        var servedEarly: Set<UInt64> = []
    }

    /// What `stats()` reports for an unlimited pool's worker count.
    private let limit: Int
    private let time: any TimeSource
    private let state: Locked<State>

    /// `workers` 0: no limit, only the service time applies.
    init(workers: Int, serviceTime: Duration, time: any TimeSource) {
        limit = workers
        self.time = time
        state = Locked(State(pool: WorkerPool(workers: workers == 0 ? Int.max : workers, serviceTime: serviceTime)))
    }

    /// Waits for a worker and its service time; true when the caller is still there for the
    /// answer. A caller that leaves (the task is cancelled) gets false at once, while its request
    /// keeps its place and, in its turn, its worker for the whole service time.
    func serve() async -> Bool {
        let arrival = state.withLock { $0.pool.arrive(now: time.now) }
        if case .started(let start) = arrival { arm(start) }
        let ticket = arrival.ticket
        let answered = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let known = state.withLock { state -> Bool? in
                    if state.servedEarly.remove(ticket.number) != nil { return true }
                    // Checked under the lock the cancellation handler takes, so a cancellation
                    // either finds the waiter or is seen here.
                    if Task.isCancelled {
                        _ = state.pool.leave(ticket)
                        return false
                    }
                    state.waiters[ticket.number] = continuation
                    return nil
                }
                if let known { continuation.resume(returning: known) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                _ = state.pool.leave(ticket)
                return state.waiters.removeValue(forKey: ticket.number)
            }
            waiter?.resume(returning: false)
        }
        // Served while the caller was there, but it left before its handler ran again.
        if answered && Task.isCancelled {
            state.withLock { $0.pool.answerUndeliverable() }
            return false
        }
        return answered
    }

    func stats() -> StubWorkerStats {
        state.withLock { state in
            StubWorkerStats(
                workers: limit, busy: state.pool.busy, queued: state.pool.queued,
                served: state.pool.served, servedForGone: state.pool.servedForGone)
        }
    }

    func resetCounts() {
        state.withLock { $0.pool.resetCounts() }
    }

    fileprivate func finished(_ ticket: WorkerPool.Ticket) {
        let (completion, waiter) = state.withLock { state -> (WorkerPool.Completion, CheckedContinuation<Bool, Never>?) in
            let completion = state.pool.finish(ticket)
            guard !completion.callerGone else { return (completion, nil) }
            guard let waiter = state.waiters.removeValue(forKey: ticket.number) else {
                state.servedEarly.insert(ticket.number)
                return (completion, nil)
            }
            return (completion, waiter)
        }
        if let next = completion.next { arm(next) }
        waiter?.resume(returning: true)
    }

    private func arm(_ start: WorkerPool.Start) {
        // The pool's line decides the end; a deadline already past fires on the next turn.
        _ = time.schedule(after: start.until - time.now, target: ServiceEnd(workers: self, ticket: start.ticket))
    }
}

/// The timer of one request's service end.
private final class ServiceEnd: TimerTarget {
    let workers: RouteWorkers
    let ticket: WorkerPool.Ticket

    init(workers: RouteWorkers, ticket: WorkerPool.Ticket) {
        self.workers = workers
        self.ticket = ticket
    }

    func timerFired() {
        workers.finished(ticket)
    }
}
