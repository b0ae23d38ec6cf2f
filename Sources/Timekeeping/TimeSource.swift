/// A monotonic time line with an arbitrary origin, injected into everything that waits or expires.
///
/// The cache, the retry loop and the service hold it as an existential rather than being generic
/// over `Clock`, so that tests can swap in ``ManualTimeSource`` and move time by hand without
/// every domain type growing a generic parameter.
package protocol TimeSource: Sendable {
    /// The time elapsed since this source's origin; never goes backwards.
    var now: Duration { get }

    /// Suspends for `duration`; throws `CancellationError` as soon as the task is cancelled.
    func sleep(for duration: Duration) async throws

    /// Calls `action` once, `delay` from now, unless the answer is cancelled first: a wait that
    /// costs no task, for a race that usually ends before it (a hedge's delay). `action` runs on
    /// whatever thread the source fires on, so it only hands work on.
    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any ScheduledAction

    /// ``schedule(after:_:)`` calling `target.timerFired()`: the target is the callback, so a
    /// source that keeps its own timers needs no closure for it.
    func schedule(after delay: Duration, target: any TimerTarget) -> any ScheduledAction
}

extension TimeSource {
    /// A task that sleeps on the source: right for sources whose sleep is cheap or simulated.
    package func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any ScheduledAction {
        SleepingAction(task: Task {
            do { try await sleep(for: delay) } catch { return }
            action()
        })
    }

    package func schedule(after delay: Duration, target: any TimerTarget) -> any ScheduledAction {
        schedule(after: delay) { target.timerFired() }
    }
}

/// ``TimeSource/schedule(after:_:)`` as a sleeping task.
private struct SleepingAction: ScheduledAction {
    let task: Task<Void, Never>
    func cancel() { task.cancel() }
}

/// A ``TimeSource`` backed by any Swift clock whose durations are `Duration`.
///
/// The origin is the clock's instant at initialisation, so `now` starts near zero.
package struct ClockTimeSource<C: Clock>: TimeSource where C.Duration == Duration {
    private let clock: C
    private let origin: C.Instant

    package init(_ clock: C) {
        self.clock = clock
        self.origin = clock.now
    }

    package var now: Duration {
        origin.duration(to: clock.now)
    }

    package func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        guard duration > .zero else { return }
        try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil)
    }
}

extension ClockTimeSource where C == ContinuousClock {
    /// The production time source: a continuous clock, which keeps counting while the system sleeps.
    package init() {
        self.init(ContinuousClock())
    }
}

/// A callback waiting on a ``TimeSource``: ``cancel()`` keeps it from running if it has not yet.
package protocol ScheduledAction: Sendable {
    /// Idempotent; an action already running or run is not undone.
    func cancel()
}

/// An object that a ``TimeSource`` timer calls back (``TimeSource/schedule(after:target:)``).
///
/// A race or a wait that is an object already is its own callback: arming its timer then
/// allocates no closure capturing it.
package protocol TimerTarget: AnyObject, Sendable {
    /// Runs on whatever thread the source fires on, so it only hands work on.
    func timerFired()
}
