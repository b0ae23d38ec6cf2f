import CLibUV
import Timekeeping

/// A restartable libuv timer. Loop-confined: use it only on `loop`'s thread.
package final class LoopTimer: LoopHandle {
    private var callback: (() -> Void)?
    /// Set by `start(at:)`: `fire` re-arms instead of calling back while it is still ahead.
    private var deadline: ContinuousClock.Instant?

    private var timer: UnsafeMutablePointer<uv_timer_t> { raw.assumingMemoryBound(to: uv_timer_t.self) }

    package init(loop: EventLoop) {
        super.init(loop: loop, type: UV_TIMER)
        uv_timer_init(loop.uvLoop, timer)
        adopt()
    }

    /// (Re)arms the timer to call `callback` once after `delay` (millisecond resolution, rounded up).
    package func start(after delay: Duration, _ callback: @escaping () -> Void) {
        guard !isClosing else { return }
        self.callback = callback
        deadline = nil
        uv_timer_start(timer, loopTimerFired, delay.roundedUpMilliseconds, 0)
    }

    /// (Re)arms the timer to call `callback` once the monotonic clock has reached `deadline`.
    ///
    /// libuv counts from the loop's cached time, which lags the real clock while an iteration is
    /// busy, so a plain timer can fire a little early; this one re-arms for whatever is left, and
    /// never calls back before the deadline. `now`: the clock's reading, when the caller has just
    /// taken it.
    package func start(at deadline: ContinuousClock.Instant, now: ContinuousClock.Instant = .now, _ callback: @escaping () -> Void) {
        guard !isClosing else { return }
        self.callback = callback
        self.deadline = deadline
        uv_timer_start(timer, loopTimerFired, now.duration(to: deadline).roundedUpMilliseconds, 0)
    }

    /// Disarms the timer; it can be started again.
    package func stop() {
        guard !isClosing else { return }
        callback = nil
        deadline = nil
        uv_timer_stop(timer)
    }

    /// Disarms and releases the timer for good.
    package func cancel() { close() }

    override func willClose() {
        callback = nil
        deadline = nil
    }

    fileprivate func fire() {
        if let deadline {
            let left = ContinuousClock.now.duration(to: deadline)
            if left > .zero {
                uv_timer_start(timer, loopTimerFired, left.roundedUpMilliseconds, 0)
                return
            }
        }
        let callback = self.callback
        self.callback = nil
        deadline = nil
        callback?()
    }
}

private func loopTimerFired(_ timer: UnsafeMutablePointer<uv_timer_t>?) {
    guard let timer else { return }
    let handle = UnsafeMutableRawPointer(timer).assumingMemoryBound(to: uv_handle_t.self)
    (LoopHandle.owner(of: handle) as? LoopTimer)?.fire()
}
