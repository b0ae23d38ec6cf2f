import Timekeeping

/// The one retry loop every upstream call goes through.
///
/// It performs what ``RetryPolicy/nextStep(after:attempt:now:deadline:random:)`` decides, asks the
/// ``RetryBudget`` before each retry, sleeps on the injected ``TimeSource`` and stops at once when
/// its task is cancelled: a cancelled request must not keep knocking on an upstream.
///
/// Each attempt first asks the upstream's ``UpstreamBreaker``: while it is open the call fails at
/// once with ``UpstreamFailure/circuitOpen`` (a retry it refuses ends the call with the failure
/// before it). With a ``Hedger``, an attempt that has not answered within the hedge delay gets a
/// second one beside it; the first answer wins and the other is cancelled.
///
/// With a ``LoadAdmission``, every attempt holds room at the upstream's concurrency limit while it
/// runs: the first with the room its load was admitted with (`holdsRoom`), a retry or a hedge only
/// with room free now (else the retry is not sent, and the call ends with its last failure; the
/// hedge is not sent). No attempt starts with less time left than the upstream's baseline latency.
package struct Retrier: Sendable {
    package let policy: RetryPolicy
    package let budget: RetryBudget
    package let breaker: UpstreamBreaker?
    package let hedger: Hedger?
    package let admission: LoadAdmission?
    private let time: any TimeSource
    private let random: @Sendable (ClosedRange<Double>) -> Double
    private let events: any UpstreamEvents

    package init(
        policy: RetryPolicy = RetryPolicy(),
        budget: RetryBudget,
        breaker: UpstreamBreaker? = nil,
        hedger: Hedger? = nil,
        admission: LoadAdmission? = nil,
        time: any TimeSource,
        random: @escaping @Sendable (ClosedRange<Double>) -> Double = { Double.random(in: $0) },
        events: any UpstreamEvents = NoEvents()
    ) {
        self.policy = policy
        self.budget = budget
        self.breaker = breaker
        self.hedger = hedger
        self.admission = admission
        self.time = time
        self.random = random
        self.events = events
    }

    /// Runs `operation` until it succeeds, fails for good, or `deadline` (absolute, in the time
    /// source's `now` terms) leaves no room for another attempt.
    ///
    /// `observer` (the request whose load this call is part of) hears of each retry. `holdsRoom`:
    /// the caller's load was admitted with room for this call's first attempt, which this call
    /// now owns (and gives back if it never makes the attempt).
    ///
    /// Throws the last attempt's failure, ``UpstreamFailure/circuitOpen`` when the breaker refused
    /// the first attempt, or ``UpstreamFailure/cancelled`` when the task is cancelled.
    package func run<T: Sendable>(
        _ upstream: Upstream,
        deadline: Duration,
        requestID: String,
        trace: TraceContext? = nil,
        observer: (any LoadObserver)? = nil,
        holdsRoom: Bool = false,
        _ operation: nonisolated(nonsending) @escaping @Sendable (UpstreamCall) async throws(UpstreamFailure) -> T
    ) async throws(UpstreamFailure) -> T {
        // Two copies of the loop: an async function's frame comes from its task's allocator, and
        // the copy for a call that is never hedged carries no room for the race.
        if hedger == nil {
            return try await runAlone(
                upstream, deadline: deadline, requestID: requestID, trace: trace, observer: observer, holdsRoom: holdsRoom, operation)
        }
        return try await runHedged(
            upstream, deadline: deadline, requestID: requestID, trace: trace, observer: observer, holdsRoom: holdsRoom, operation)
    }

    @inline(never)
    private func runAlone<T: Sendable>(
        _ upstream: Upstream, deadline: Duration, requestID: String, trace: TraceContext?, observer: (any LoadObserver)?, holdsRoom: Bool,
        _ operation: nonisolated(nonsending) @escaping @Sendable (UpstreamCall) async throws(UpstreamFailure) -> T
    ) async throws(UpstreamFailure) -> T {
        try await attempts(
            upstream, deadline: deadline, requestID: requestID, trace: trace, observer: observer, holdsRoom: holdsRoom, mayHedge: false,
            operation)
    }

    @inline(never)
    private func runHedged<T: Sendable>(
        _ upstream: Upstream, deadline: Duration, requestID: String, trace: TraceContext?, observer: (any LoadObserver)?, holdsRoom: Bool,
        _ operation: nonisolated(nonsending) @escaping @Sendable (UpstreamCall) async throws(UpstreamFailure) -> T
    ) async throws(UpstreamFailure) -> T {
        try await attempts(
            upstream, deadline: deadline, requestID: requestID, trace: trace, observer: observer, holdsRoom: holdsRoom, mayHedge: true,
            operation)
    }

    /// The retry loop of ``run(_:deadline:requestID:trace:observer:holdsRoom:_:)``; `mayHedge` is a
    /// constant in each copy, so the one without a hedger loses the race's code and frame.
    @inline(__always)
    private func attempts<T: Sendable>(
        _ upstream: Upstream, deadline: Duration, requestID: String, trace: TraceContext?, observer: (any LoadObserver)?, holdsRoom: Bool,
        mayHedge: Bool,
        _ operation: nonisolated(nonsending) @escaping @Sendable (UpstreamCall) async throws(UpstreamFailure) -> T
    ) async throws(UpstreamFailure) -> T {
        // One read of the clock serves the first attempt's every use of it.
        var started = time.now
        budget.recordRequest(at: started)
        var attempt = 1
        var lastFailure: UpstreamFailure?
        // Room the load was admitted with and no attempt took yet: given back on any way out.
        var heldRoom = holdsRoom && admission != nil
        defer { if heldRoom { admission?.end(upstream, .nothing) } }
        while true {
            if Task.isCancelled { throw .cancelled }
            if attempt == 1 { hedger?.recordCall(at: started) } else { started = time.now }
            // Only reachable on a later attempt if a sleep overshot; then the last failure is the answer.
            guard started < deadline else { throw gaveUp(upstream, lastFailure ?? .timedOut, attempts: attempt - 1) }
            if let breaker, !breaker.admit(at: started) {
                guard let lastFailure else { throw .circuitOpen }
                throw gaveUp(upstream, lastFailure, attempts: attempt - 1)
            }
            if let admission {
                // An upstream that cannot answer in the time left is not asked: the work would be
                // for a caller that will have gone.
                if let baseline = admission.baseline(of: upstream), deadline - started < baseline {
                    breaker?.record(.shed, at: started)
                    throw gaveUp(upstream, lastFailure ?? .timedOut, attempts: attempt - 1)
                }
                if !heldRoom, !admission.tryStart(upstream) {
                    // A half-open breaker's trial that is not sent is no trial.
                    breaker?.record(.shed, at: started)
                    guard let lastFailure else { throw .shed }
                    events.retryShed(upstream)
                    throw gaveUp(upstream, lastFailure, attempts: attempt - 1)
                }
                heldRoom = false
            }
            let call = UpstreamCall(timeout: policy.attemptTimeout(now: started, deadline: deadline), requestID: requestID, trace: trace)
            let outcome: Result<T, UpstreamFailure>
            let hedging = mayHedge ? hedger?.delay(at: started) : nil
            if let hedging, hedging.armed, hedging.delay < call.timeout {
                outcome = await hedged(upstream, call, startedAt: started, after: hedging.delay, deadline: deadline, operation)
            } else {
                outcome = await attemptOnce(upstream, call, startedAt: started, operation, slowAfter: hedging?.delay)
            }
            let failure: UpstreamFailure
            switch outcome {
            case .success(let value): return value
            case .failure(let error): failure = error
            }
            lastFailure = failure
            if Task.isCancelled || failure == .cancelled { throw .cancelled }
            if failure == .circuitOpen { throw gaveUp(upstream, failure, attempts: attempt) }

            let step = policy.nextStep(after: failure, attempt: attempt, now: time.now, deadline: deadline, random: random)
            guard case .retry(let delay) = step else { throw gaveUp(upstream, failure, attempts: attempt) }
            guard budget.tryWithdrawRetry() else {
                events.retryBudgetExhausted(upstream)
                throw gaveUp(upstream, failure, attempts: attempt)
            }
            events.retry(upstream, reason: failure.label)
            observer?.retried()
            do {
                try await time.sleep(for: delay)
            } catch {
                throw .cancelled
            }
            attempt += 1
        }
    }

    /// One attempt, begun at `started`, reported to the events, the breaker and the hedger (a
    /// success's latency; an attempt that took `slowAfter` or more, or timed out, arms hedging).
    private func attemptOnce<T: Sendable>(
        _ upstream: Upstream, _ call: UpstreamCall, startedAt started: Duration,
        _ operation: (UpstreamCall) async throws(UpstreamFailure) -> T, slowAfter: Duration? = nil
    ) async -> Result<T, UpstreamFailure> {
        // Every attempt that reaches here holds room, when there is an admission.
        let outcome: Result<T, UpstreamFailure>
        do throws(UpstreamFailure) {
            outcome = .success(try await operation(call))
        } catch {
            outcome = .failure(error)
        }
        let ended = time.now
        let duration = ended - started
        let failure: UpstreamFailure?
        switch outcome {
        case .success:
            failure = nil
            hedger?.recordSuccess(after: duration)
        case .failure(let error):
            failure = error
        }
        if let slowAfter, duration >= slowAfter || failure == .timedOut { hedger?.recordSlow() }
        events.upstreamAttempt(upstream, failure: failure, duration: duration)
        breaker?.record(failure, at: ended)
        admission?.end(upstream, Self.sample(failure, after: duration), at: ended)
        return outcome
    }

    /// An attempt that gets a hedge beside it if it has not answered after `delay`: the first
    /// answer wins (a failure that is an answer, such as a `404`, too), and the other attempt is
    /// cancelled. A failure that says the upstream is unwell (a time-out, a `5xx`) waits for the
    /// other attempt, if one runs.
    ///
    /// Inlined into the retry loop: an async function's frame comes from its task's allocator, and
    /// a frame of its own here made every hedged call allocate one more block, too large for
    /// malloc's per-thread cache.
    @inline(__always)
    private func hedged<T: Sendable>(
        _ upstream: Upstream, _ call: UpstreamCall, startedAt started: Duration, after delay: Duration, deadline: Duration,
        _ operation: nonisolated(nonsending) @escaping @Sendable (UpstreamCall) async throws(UpstreamFailure) -> T
    ) async -> Result<T, UpstreamFailure> {
        let race = HedgeRace<T>()
        let timer = time.schedule(after: delay, target: race)
        defer { timer.cancel() }
        // Leaving the scope cancels whichever attempt still runs, and waits for it.
        async let _ = race.post(.answered(await attemptOnce(upstream, call, startedAt: started, operation), byHedge: false))
        if case .answered(let outcome, _) = await race.next() { return outcome }
        if let (outcome, _) = race.answerIfPosted() {
            // It took the delay all the same: that arms hedging as a hedge would have.
            hedger?.recordSlow()
            return outcome
        }
        guard !Task.isCancelled, breaker?.admitHedge() ?? true, admission?.tryStart(upstream) ?? true else {
            if !Task.isCancelled { events.hedge(upstream, .refused) }
            return await race.nextAnswer().outcome
        }
        guard hedger?.tryWithdrawHedge() ?? false else {
            admission?.end(upstream, .nothing)
            if !Task.isCancelled { events.hedge(upstream, .refused) }
            return await race.nextAnswer().outcome
        }
        return await sendHedge(upstream, call, deadline: deadline, into: race, operation)
    }

    /// The hedge of ``hedged(_:_:after:deadline:_:)``, raced against the first attempt; apart, so
    /// that a call answered before its delay carries no room for a second child task.
    private func sendHedge<T: Sendable>(
        _ upstream: Upstream, _ call: UpstreamCall, deadline: Duration, into race: HedgeRace<T>,
        _ operation: nonisolated(nonsending) @escaping @Sendable (UpstreamCall) async throws(UpstreamFailure) -> T
    ) async -> Result<T, UpstreamFailure> {
        events.hedge(upstream, .sent)
        hedger?.recordSlow()
        let now = time.now
        let hedgeCall = UpstreamCall(timeout: policy.attemptTimeout(now: now, deadline: deadline), requestID: call.requestID, trace: call.trace)
        async let _ = race.post(.answered(await attemptOnce(upstream, hedgeCall, startedAt: now, operation), byHedge: true))
        var running = 2
        while true {
            let (outcome, byHedge) = await race.nextAnswer()
            running -= 1
            if case .failure(let failure) = outcome, UpstreamBreaker.verdict(for: failure) != .success, running > 0 { continue }
            events.hedge(upstream, byHedge ? .won : .lost)
            return outcome
        }
    }

    /// What an attempt's outcome says of the upstream's queue: an answer (any status) its latency,
    /// a time-out that it is past what it can serve, anything else nothing.
    static func sample(_ failure: UpstreamFailure?, after duration: Duration) -> ConcurrencyLimit.Sample {
        guard let failure else { return .answered(after: duration) }
        switch failure {
        case .status, .notFound, .malformedBody: return .answered(after: duration)
        case .timedOut: return .timedOut
        case .connectFailed, .hostNotFound, .connectionReset, .cancelled, .circuitOpen, .shed: return .nothing
        }
    }

    /// Reports a call that failed for good (a `404` is an answer, not a failure) and returns
    /// its failure to throw.
    private func gaveUp(_ upstream: Upstream, _ failure: UpstreamFailure, attempts: Int) -> UpstreamFailure {
        if failure != .notFound { events.upstreamGaveUp(upstream, failure: failure, attempts: attempts) }
        return failure
    }
}
