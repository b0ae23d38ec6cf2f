import Locking
import Timekeeping

/// The shell around ``AdmissionMachine``, shared by every loop: one short lock per event, a
/// continuation for a load that waits, and one timer for the whole queue.
///
/// A load that finds room (the common case) takes it under one lock with nothing allocated. One
/// that waits parks a continuation; it is resumed when room comes, when its wait runs out
/// (``AdmissionMachine/nextExpiry(at:)``, on one timer re-armed as the queue changes), or at once
/// when its task is cancelled.
package final class LoadAdmission: TimerTarget, Sendable {
    /// How a load's admission ended.
    package enum Outcome: Sendable, Equatable {
        /// It holds room at every upstream it asked for, until it ``end(_:_:)``s each.
        case admitted
        case refused(AdmissionRefusal)
        case cancelled
    }

    private struct Waiter {
        var continuation: CheckedContinuation<Outcome, Never>?
        /// Decided before the continuation was parked.
        var outcome: Outcome?
    }

    private struct State {
        var machine: AdmissionMachine
        var nextTicket: UInt64 = 0
        var waiters: [UInt64: Waiter] = [:]
        var timer: (any ScheduledAction)?
        var timerAt: Duration?
        var timerGeneration: UInt64 = 0
    }

    package let policy: AdmissionMachine.Policy
    private let state: Locked<State>
    private let time: any TimeSource
    private let events: any AdmissionEvents
    private let load: (any LocalLoad)?

    /// - Parameter load: the caller's own load: a latency measured while it is saturated is not
    ///   the upstream's (``ConcurrencyLimit``).
    package init(
        policy: AdmissionMachine.Policy = .init(), time: any TimeSource, events: any AdmissionEvents = NoEvents(), load: (any LocalLoad)? = nil
    ) {
        self.policy = policy
        state = Locked(State(machine: AdmissionMachine(policy: policy)))
        self.time = time
        self.events = events
        self.load = load
    }

    /// Waits, if it must and `mayWait`, until the load has room at every upstream of `needs`.
    package func admit(_ needs: UpstreamSet, deadline: Duration, mayWait: Bool = true) async -> Outcome {
        let now = time.now
        var actions = AdmissionMachine.Actions()
        let (ticket, arrival) = state.withLock { state -> (UInt64, AdmissionMachine.Arrival) in
            state.nextTicket &+= 1
            let ticket = state.nextTicket
            let arrival = state.machine.arrive(ticket, needs: needs, deadline: deadline, mayWait: mayWait, at: now, actions: &actions)
            if arrival == .queued { state.waiters[ticket] = Waiter() }
            return (ticket, arrival)
        }
        perform(actions)
        switch arrival {
        case .admitted:
            events.loadAdmitted(waited: .zero)
            return .admitted
        case .refused(let reason):
            events.loadShed(reason)
            return .refused(reason)
        case .queued:
            armTimer()
            return await waitForTurn(ticket)
        }
    }

    /// Room for one more call to `upstream` beside an admitted load's own (a retry, a hedge):
    /// only while nothing waits and the limit has room. On `true`, ``end(_:_:)`` it.
    package func tryStart(_ upstream: Upstream) -> Bool {
        let now = time.now
        return state.withLock { $0.machine.tryStart(upstream, at: now) }
    }

    /// A call to `upstream` that had room ended (`.nothing` for room that went unused).
    package func end(_ upstream: Upstream, _ sample: ConcurrencyLimit.Sample, at now: Duration? = nil) {
        let now = now ?? time.now
        var actions = AdmissionMachine.Actions()
        var saturated = false
        if case .answered = sample { saturated = load?.isSaturated ?? false }
        state.withLock { $0.machine.end(upstream, sample, at: now, callerSaturated: saturated, actions: &actions) }
        perform(actions)
    }

    /// A page was answered without `upstream`'s part, still on its way when the grace ended.
    package func noteLate(_ upstream: Upstream) {
        let now = time.now
        state.withLock { $0.machine.noteLate(upstream, at: now) }
    }

    /// Whether pages wait for room at `upstream`: not for a while after its part came late.
    package func waitsForRoom(at upstream: Upstream) -> Bool {
        let now = time.now
        return state.withLock { !$0.machine.isLate(upstream, at: now) }
    }

    /// The least time `upstream` takes to answer when nothing waits there, once known.
    package func baseline(of upstream: Upstream) -> Duration? {
        state.withLock { $0.machine.baseline(of: upstream) }
    }

    /// The limit on `upstream`'s calls in flight now, and how many are.
    package func limit(of upstream: Upstream) -> (limit: Int, inFlight: Int) {
        state.withLock {
            let limit = $0.machine.limit(of: upstream)
            return (limit.effectiveLimit, limit.inFlight)
        }
    }

    /// Loads waiting for room now.
    package var queued: Int { state.withLock { $0.machine.queued } }

    package func timerFired() {
        let now = time.now
        var actions = AdmissionMachine.Actions()
        state.withLock { state in
            state.timer = nil
            state.timerAt = nil
            state.machine.tick(at: now, actions: &actions)
        }
        perform(actions)
        armTimer()
    }

    private func waitForTurn(_ ticket: UInt64) async -> Outcome {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                let decided = state.withLock { state -> Outcome? in
                    if let outcome = state.waiters[ticket]?.outcome {
                        state.waiters[ticket] = nil
                        return outcome
                    }
                    state.waiters[ticket]?.continuation = continuation
                    return nil
                }
                if let decided { continuation.resume(returning: decided) }
            }
        } onCancel: {
            let now = time.now
            let continuation = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
                // Admitted or refused already: that path resumes it.
                guard state.machine.cancel(ticket, at: now) else { return nil }
                if let continuation = state.waiters[ticket]?.continuation {
                    state.waiters[ticket] = nil
                    return continuation
                }
                state.waiters[ticket] = Waiter(outcome: .cancelled)
                return nil
            }
            continuation?.resume(returning: .cancelled)
        }
    }

    /// Resumes the loads an event admitted or refused and reports them, outside the lock.
    private func perform(_ actions: AdmissionMachine.Actions) {
        if let shedding = actions.shedding { events.shedding(shedding) }
        guard !actions.admitted.isEmpty || !actions.refused.isEmpty else { return }
        for (ticket, waited) in actions.admitted {
            events.loadAdmitted(waited: waited)
            resume(ticket, with: .admitted)
        }
        for (ticket, reason) in actions.refused {
            events.loadShed(reason)
            resume(ticket, with: .refused(reason))
        }
    }

    private func resume(_ ticket: UInt64, with outcome: Outcome) {
        let continuation = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
            guard let waiter = state.waiters[ticket] else { return nil }
            if let continuation = waiter.continuation {
                state.waiters[ticket] = nil
                return continuation
            }
            state.waiters[ticket]?.outcome = outcome
            return nil
        }
        continuation?.resume(returning: outcome)
    }

    /// Keeps one timer at the queue's next expiry: re-armed only when that comes sooner.
    private func armTimer() {
        let now = time.now
        let plan = state.withLock { state -> (at: Duration, generation: UInt64, replaced: (any ScheduledAction)?)? in
            guard let expiry = state.machine.nextExpiry(at: now) else { return nil }
            if let armed = state.timerAt, armed <= expiry { return nil }
            state.timerGeneration &+= 1
            state.timerAt = expiry
            let replaced = state.timer
            state.timer = nil
            return (expiry, state.timerGeneration, replaced)
        }
        guard let plan else { return }
        plan.replaced?.cancel()
        let action = time.schedule(after: max(.nanoseconds(1), plan.at - now), target: self)
        let stale = state.withLock { state -> Bool in
            guard state.timerGeneration == plan.generation else { return true }
            state.timer = action
            return false
        }
        if stale { action.cancel() }
    }
}

/// What ``LoadAdmission`` reports: loads let through to the upstreams or refused room there.
///
/// Calls happen on request paths, never while a lock is held: implementations must be cheap and
/// non-blocking.
package protocol AdmissionEvents: Sendable {
    /// A load was let through to its upstreams after waiting `waited` (zero: room was free).
    func loadAdmitted(waited: Duration)
    /// A load was refused room at its upstreams, and why.
    func loadShed(_ reason: AdmissionRefusal)
    /// Loads started (`true`) or stopped (`false`) being refused for want of upstream room.
    func shedding(_ started: Bool)
}
