import Locking
import Synchronization

/// A ``TimeSource`` whose time moves only when a test calls ``advance(by:)``.
///
/// Tests must never wait on the wall clock: they park tasks in ``sleep(for:)``, wait until
/// ``sleeperCount`` shows them parked, then advance time and observe what happens.
public final class ManualTimeSource: TimeSource {
    private struct Sleeper {
        let id: UInt64
        let deadline: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Duration
        var nextID: UInt64 = 0
        var sleepers: [UInt64: Sleeper] = [:]
    }

    private enum Registration {
        case parked, alreadyDue, cancelled
    }

    private let state: Locked<State>

    public init(now: Duration = .zero) {
        state = Locked(State(now: now))
    }

    public var now: Duration {
        state.withLock { $0.now }
    }

    /// How many tasks are parked in ``sleep(for:)`` right now.
    public var sleeperCount: Int {
        state.withLock { $0.sleepers.count }
    }

    /// Moves time forward and resumes, in deadline order, every sleeper whose deadline has passed.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now += duration
            let now = state.now
            let due = state.sleepers.values
                .filter { $0.deadline <= now }
                .sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
            for sleeper in due {
                state.sleepers[sleeper.id] = nil
            }
            return due
        }
        // Resumed outside the lock: a resumed task may read `now` straight away.
        for sleeper in due {
            sleeper.continuation.resume()
        }
    }

    public func sleep(for duration: Duration) async throws {
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

    /// Suspends (yielding, never sleeping) until at least `count` tasks are parked in ``sleep(for:)``.
    public func waitForSleepers(_ count: Int = 1) async {
        while sleeperCount < count {
            await Task.yield()
        }
    }
}
