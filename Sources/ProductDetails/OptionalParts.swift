import Locking
import Timekeeping

/// The optional parts of one load (reviews and suggestions) as they arrive, so that the load can
/// answer without a part that is late and still complete its cached page when that part comes.
///
/// Each part's fetch runs in a task of its own and delivers here. The load waits for both parts
/// or the end of its grace, whichever is first (``waitForBoth(orUntil:)``). It then either has
/// both (``settle(whenBothArrive:)`` says so) or leaves a completion that the last delivery
/// runs: the late page is built and stored by the task that brought its last part.
final class OptionalParts: Sendable {
    typealias Reviews = Result<[Review], UpstreamFailure>
    typealias Suggested = Result<[Product], UpstreamFailure>

    /// What the load found when it settled.
    enum Settlement {
        /// Both parts are here.
        case complete(Reviews, Suggested)
        /// At least one is not: the completion runs when it arrives. `nil` for a part still out.
        case partial(Reviews?, Suggested?)
    }

    private struct State {
        var reviews: Reviews?
        var suggested: Suggested?
        var waiter: CheckedContinuation<Void, Never>?
        /// Set once the waiter stopped waiting (both arrived, the grace ended, or it was cancelled).
        var waitEnded = false
        var completion: (@Sendable (Reviews, Suggested) async -> Void)?
        var tasks: [Task<Void, Never>] = []

        var bothArrived: Bool { reviews != nil && suggested != nil }
    }

    private let state = Locked(State())

    /// Starts the two fetches on `executor` (the load's loop).
    func start(
        executor: (any TaskExecutor)?,
        reviews: @escaping @Sendable () async -> Reviews,
        suggested: @escaping @Sendable () async -> Suggested
    ) {
        let reviewsTask = Task(executorPreference: executor) {
            let part = await reviews()
            await self.arrived { $0.reviews = part }
        }
        let suggestedTask = Task(executorPreference: executor) {
            let part = await suggested()
            await self.arrived { $0.suggested = part }
        }
        state.withLock { $0.tasks = [reviewsTask, suggestedTask] }
    }

    /// Cancels both fetches (the load failed or its last waiter left); no completion runs after
    /// a cancelled fetch delivers `cancelled`.
    func cancel() {
        let tasks = state.withLock { state in
            state.completion = nil
            return state.tasks
        }
        for task in tasks { task.cancel() }
    }

    /// Returns when both parts are here, when `grace` has passed (on `time`), or when the caller
    /// is cancelled, whichever is first.
    func waitForBoth(orUntil grace: Duration, on time: any TimeSource, executor: (any TaskExecutor)?) async {
        guard !state.withLock({ $0.bothArrived }), grace > .zero else { return }
        let timer = Task(executorPreference: executor) {
            do { try await time.sleep(for: grace) } catch { return }
            self.endWait()
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.waitEnded || state.bothArrived { return true }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            self.endWait()
        }
        timer.cancel()
    }

    /// Takes what is here; when a part is missing, `completion` runs once the last one arrives.
    func settle(whenBothArrive completion: @escaping @Sendable (Reviews, Suggested) async -> Void) -> Settlement {
        state.withLock { state in
            if let reviews = state.reviews, let suggested = state.suggested {
                return .complete(reviews, suggested)
            }
            state.completion = completion
            return .partial(state.reviews, state.suggested)
        }
    }

    /// Stores a part; the delivery that completes the pair wakes the waiter and runs the
    /// completion, in its own task.
    private func arrived(_ store: (inout State) -> Void) async {
        let (waiter, completion, parts) = state.withLock { state in
            store(&state)
            guard let reviews = state.reviews, let suggested = state.suggested else {
                return (nil as CheckedContinuation<Void, Never>?, nil as (@Sendable (Reviews, Suggested) async -> Void)?, nil as (Reviews, Suggested)?)
            }
            let waiter = state.waiter
            let completion = state.completion
            state.waiter = nil
            state.waitEnded = true
            state.completion = nil
            return (waiter, completion, (reviews, suggested))
        }
        waiter?.resume()
        if let completion, let parts {
            await completion(parts.0, parts.1)
        }
    }

    private func endWait() {
        let waiter = state.withLock { state in
            state.waitEnded = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}
