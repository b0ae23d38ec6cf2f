import Locking
import Timekeeping

/// A time source whose sleeps return at once after moving time forward by the requested amount,
/// recording each: for retry tests that check the delays chosen, not the waiting.
final class SkippingTimeSource: TimeSource {
    private struct State {
        var now: Duration = .zero
        var sleeps: [Duration] = []
        var overshoot: Duration = .zero
    }

    private let state = Locked(State())

    var now: Duration { state.withLock { $0.now } }
    var sleeps: [Duration] { state.withLock { $0.sleeps } }

    func advance(by duration: Duration) {
        state.withLock { $0.now += duration }
    }

    /// Makes every later sleep last `extra` longer than asked, like a late timer.
    func oversleep(by extra: Duration) {
        state.withLock { $0.overshoot = extra }
    }

    func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.sleeps.append(duration)
            state.now += duration + state.overshoot
        }
    }
}
