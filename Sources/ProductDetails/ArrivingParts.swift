import Locking
import Timekeeping

/// The optional parts of one load as they arrive, readable before the load awaits them.
///
/// Reviews and suggestions are fetched in `async let` children of the load (as cheap as a child
/// task gets), each of which also leaves its result here. Once the product is in, the load looks
/// here first: both parts in is the common case, and costs nothing more. Otherwise it waits for
/// them or for the end of its grace (``waitForBoth(orUntil:on:)``), whichever is first,
/// and may answer with what is here before it awaits the late part itself.
final class ArrivingParts: TimerTarget {
    private struct State {
        var reviews: Result<[Review], UpstreamFailure>?
        var suggested: Result<[Product], UpstreamFailure>?
        var waiter: CheckedContinuation<Void, Never>?
        /// The waiter stopped waiting (both arrived, the grace ended, or it was cancelled).
        var waitEnded = false

        var bothArrived: Bool { reviews != nil && suggested != nil }
    }

    private let state = Locked(State())

    var bothArrived: Bool { state.withLock { $0.bothArrived } }

    /// What has arrived so far (`nil` for a part still on its way).
    var parts: (reviews: Result<[Review], UpstreamFailure>?, suggested: Result<[Product], UpstreamFailure>?) {
        state.withLock { ($0.reviews, $0.suggested) }
    }

    func arrived(reviews: Result<[Review], UpstreamFailure>) -> Result<[Review], UpstreamFailure> {
        deliver { $0.reviews = reviews }
        return reviews
    }

    func arrived(suggested: Result<[Product], UpstreamFailure>) -> Result<[Product], UpstreamFailure> {
        deliver { $0.suggested = suggested }
        return suggested
    }

    /// Returns when both parts are here, when `grace` has passed on `time`, or when the caller
    /// is cancelled, whichever is first. The timer is made only here: a load whose parts came
    /// with its product never gets this far.
    func waitForBoth(orUntil grace: Duration, on time: any TimeSource) async {
        guard !bothArrived else { return }
        let timer = time.schedule(after: grace, target: self)
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

    private func deliver(_ store: (inout State) -> Void) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            store(&state)
            guard state.bothArrived else { return nil }
            state.waitEnded = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    func timerFired() { endWait() }

    private func endWait() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.waitEnded = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}
