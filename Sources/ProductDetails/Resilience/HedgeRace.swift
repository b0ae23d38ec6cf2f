import Locking

/// What the attempts and the timer of one hedged attempt tell the task that runs it, in order.
///
/// A box, not a task group: the first attempt is an `async let` and the delay a callback timer,
/// so a call that answers before the delay (nearly all) starts one child task and no timer task.
final class HedgeRace<T: Sendable>: Sendable {
    enum Event: Sendable {
        case answered(Result<T, UpstreamFailure>, byHedge: Bool)
        case delayPassed
    }

    private struct State {
        var queued: [Event] = []
        var waiter: UnsafeContinuation<Event, Never>?
    }

    private let state = Locked(State())

    func post(_ event: Event) {
        let waiter = state.withLock { state -> UnsafeContinuation<Event, Never>? in
            guard let waiter = state.waiter else {
                state.queued.append(event)
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: event)
    }

    /// The next event; one task waits at a time.
    func next() async -> Event {
        await withUnsafeContinuation { continuation in
            let ready = state.withLock { state -> Event? in
                guard state.queued.isEmpty else { return state.queued.removeFirst() }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// The next attempt's answer, past the timer's event.
    func nextAnswer() async -> (outcome: Result<T, UpstreamFailure>, byHedge: Bool) {
        while true {
            if case .answered(let outcome, let byHedge) = await next() { return (outcome, byHedge) }
        }
    }
}
