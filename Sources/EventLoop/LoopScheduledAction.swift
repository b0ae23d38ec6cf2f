import Synchronization
import Timekeeping

/// One ``LoopTimeSource/schedule(after:_:)`` callback: a libuv timer on `loop`, no task.
///
/// `@unchecked Sendable`: `timer` is touched only on `loop`'s thread; `cancelled` is atomic.
final class LoopScheduledAction: ScheduledAction, @unchecked Sendable {
    private let loop: EventLoop
    private var timer: LoopTimer?
    private let cancelled = Atomic(false)

    init(loop: EventLoop) { self.loop = loop }

    /// Arms the timer; on `loop`'s thread.
    func arm(until deadline: ContinuousClock.Instant, _ action: @escaping @Sendable () -> Void) {
        guard !cancelled.load(ordering: .acquiring) else { return }
        let timer = LoopTimer(loop: loop)
        self.timer = timer
        timer.start(at: deadline) { [self] in
            disarm()
            if !cancelled.load(ordering: .acquiring) { action() }
        }
    }

    func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if loop.inLoop {
            disarm()
        } else {
            loop.execute { [self] in disarm() }
        }
    }

    private func disarm() {
        timer?.cancel()
        timer = nil
    }
}
