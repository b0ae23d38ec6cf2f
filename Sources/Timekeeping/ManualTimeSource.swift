import Locking
import Synchronization

/// A ``TimeSource`` whose time moves only when a test calls ``advance(by:)``.
///
/// Tests must never wait on the wall clock: they park tasks in ``sleep(for:)``, wait until
/// ``sleeperCount`` shows them parked, then advance time and observe what happens.
package final class ManualTimeSource: TimeSource {
    private struct Sleeper {
        let id: UInt64
        let deadline: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct Scheduled {
        let id: UInt64
        let deadline: Duration
        let action: @Sendable () -> Void
    }

    private struct State {
        var now: Duration
        var nextID: UInt64 = 0
        var sleepers: [UInt64: Sleeper] = [:]
        var scheduled: [UInt64: Scheduled] = [:]
    }

    private enum Registration {
        case parked, alreadyDue, cancelled
    }

    private let state: Locked<State>

    package init(now: Duration = .zero) {
        state = Locked(State(now: now))
    }

    package var now: Duration {
        state.withLock { $0.now }
    }

    /// How many tasks are parked in ``sleep(for:)`` right now.
    package var sleeperCount: Int {
        state.withLock { $0.sleepers.count }
    }

    /// How many ``schedule(after:_:)`` actions wait to run.
    package var scheduledCount: Int {
        state.withLock { $0.scheduled.count }
    }

    /// Moves time forward and resumes, in deadline order, every sleeper whose deadline has passed,
    /// and runs every scheduled action that is due.
    package func advance(by duration: Duration) {
        let due = state.withLock { state -> [(deadline: Duration, id: UInt64, run: @Sendable () -> Void)] in
            state.now += duration
            let now = state.now
            var due: [(deadline: Duration, id: UInt64, run: @Sendable () -> Void)] = []
            for sleeper in state.sleepers.values where sleeper.deadline <= now {
                state.sleepers[sleeper.id] = nil
                due.append((sleeper.deadline, sleeper.id, { sleeper.continuation.resume() }))
            }
            for action in state.scheduled.values where action.deadline <= now {
                state.scheduled[action.id] = nil
                due.append((action.deadline, action.id, action.action))
            }
            return due.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
        }
        // Run outside the lock: a resumed task or an action may read `now` straight away.
        for entry in due {
            entry.run()
        }
    }

    package func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any ScheduledAction {
        let id = state.withLock { state -> UInt64? in
            guard delay > .zero else { return nil }
            state.nextID += 1
            state.scheduled[state.nextID] = Scheduled(id: state.nextID, deadline: state.now + delay, action: action)
            return state.nextID
        }
        guard let id else {
            action()
            return ManualAction(source: nil, id: 0)
        }
        return ManualAction(source: self, id: id)
    }

    fileprivate func unschedule(_ id: UInt64) {
        state.withLock { _ = $0.scheduled.removeValue(forKey: id) }
    }

    package func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        guard duration > .zero else { return }
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let registration = state.withLock { state -> Registration in
                    // The cancellation flag is set before the handler runs, so checking it under the
                    // same lock the handler takes closes the race between parking and cancelling.
                    if Task.isCancelled { return .cancelled }
                    let deadline = state.now + duration
                    if deadline <= state.now { return .alreadyDue }
                    state.sleepers[id] = Sleeper(id: id, deadline: deadline, continuation: continuation)
                    return .parked
                }
                switch registration {
                case .parked: break
                case .alreadyDue: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Suspends (yielding, never sleeping) until at least `count` tasks are parked in ``sleep(for:)``,
    /// and returns whether they are. It gives up after `tries` yields: a sleeper that never comes
    /// (the code under test finished, or cancelled its sleep, before parking) must fail the test
    /// that waits for it, not spin it for ever.
    package func waitForSleepers(_ count: Int = 1, tries: Int = 2_000_000) async -> Bool {
        for _ in 0..<tries {
            if sleeperCount >= count { return true }
            await Task.yield()
        }
        return sleeperCount >= count
    }
}

/// A ``ManualTimeSource/schedule(after:_:)`` action, by its id.
private struct ManualAction: ScheduledAction {
    let source: ManualTimeSource?
    let id: UInt64
    func cancel() { source?.unschedule(id) }
}

/// As a wall clock, a manual source reads its own time as time since the epoch: a test that
/// stamps and reads shared pages moves both lines at once, or uses one source per machine.
extension ManualTimeSource: WallClock {
    package var sinceEpoch: Duration { now }
}
