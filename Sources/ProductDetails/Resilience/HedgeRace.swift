import Locking
import Timekeeping

/// What the attempts and the timer of one hedged attempt tell the task that runs it, in order.
///
/// A box, not a task group: the first attempt is an `async let` and the delay a timer whose
/// target is the box itself, so a call that answers before the delay (nearly all) starts one
/// child task and no timer task. The events wait in place (at most the timer's and two answers),
/// so posting one allocates nothing.
final class HedgeRace<T: Sendable>: TimerTarget {
    enum Event: Sendable {
        case answered(Result<T, UpstreamFailure>, byHedge: Bool)
        case delayPassed
    }

    private struct State {
        /// Events not yet taken, oldest first.
        var queued: InlineArray<3, Event?> = InlineArray(repeating: nil)
        var count = 0
        var waiter: UnsafeContinuation<Event, Never>?

        mutating func take() -> Event? {
            guard count > 0 else { return nil }
            let first = queued[0]
            queued[0] = queued[1]
            queued[1] = queued[2]
            queued[2] = nil
            count -= 1
            return first
        }
    }

    private let state = Locked(State())

    func post(_ event: Event) {
        let waiter = state.withLock { state -> UnsafeContinuation<Event, Never>? in
            guard let waiter = state.waiter else {
                // One timer event and one answer per attempt: never more than three.
                precondition(state.count < 3, "a hedge race got more than three events")
                state.queued[state.count] = event
                state.count += 1
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: event)
    }

    func timerFired() { post(.delayPassed) }

    /// The next event; one task waits at a time.
    func next() async -> Event {
        await withUnsafeContinuation { continuation in
            let ready = state.withLock { state -> Event? in
                if let first = state.take() { return first }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// An answer already posted and not yet taken, without waiting; the events before it stay.
    ///
    /// On a busy loop the timer's callback runs before the jobs that I/O callbacks queued in the
    /// same turn: the first attempt's answer is often posted between the timer's event reaching
    /// the waiter and the waiter running, and a hedge sent then is only ever a loser.
    func answerIfPosted() -> (outcome: Result<T, UpstreamFailure>, byHedge: Bool)? {
        state.withLock { state in
            for index in 0..<state.count {
                guard case .answered(let outcome, let byHedge)? = state.queued[index] else { continue }
                for later in index..<2 { state.queued[later] = state.queued[later + 1] }
                state.queued[2] = nil
                state.count -= 1
                return (outcome, byHedge)
            }
            return nil
        }
    }

    /// The next attempt's answer, past the timer's event.
    func nextAnswer() async -> (outcome: Result<T, UpstreamFailure>, byHedge: Bool) {
        while true {
            if case .answered(let outcome, let byHedge) = await next() { return (outcome, byHedge) }
        }
    }
}
