import Synchronization
import Timekeeping

/// One ``LoopTimeSource`` callback waiting in its loop's ``LoopTimerQueue``: the only allocation
/// arming it makes, when its target is an object already.
///
/// `@unchecked Sendable`: `sequence` and `heapIndex` are touched only on `loop`'s thread (by the
/// queue); `cancelled` is atomic; the rest is immutable.
final class LoopScheduledAction: ScheduledAction, @unchecked Sendable {
    let loop: EventLoop
    let deadline: ContinuousClock.Instant
    private let target: any TimerTarget
    private let cancelled = Atomic(false)
    /// Orders actions with one deadline by when they were scheduled.
    var sequence: UInt64 = 0
    /// Its place in the queue's heap; -1 when it is not in it.
    var heapIndex = -1

    init(loop: EventLoop, deadline: ContinuousClock.Instant, target: any TimerTarget) {
        self.loop = loop
        self.deadline = deadline
        self.target = target
    }

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// On `loop`'s thread: calls the target unless the action was cancelled.
    func run() {
        if !isCancelled { target.timerFired() }
    }

    /// From any thread: the target is not called after this returns (unless it already runs).
    /// Off the loop the queue lets go of the action on the loop's next turn.
    func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if loop.inLoop {
            loop.timerQueue.remove(self)
        } else {
            loop.execute { [self] in loop.timerQueue.remove(self) }
        }
    }
}
