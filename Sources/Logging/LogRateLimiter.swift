import Locking

/// Lets at most `linesPerSecond` lines of one kind through per second and counts the rest, so a
/// client sending garbage as fast as it can cannot flood the log (each refused request would
/// otherwise be a line). The first line let through after some were held back says how many.
/// Pure: time comes in as `now` on the application's time line.
package final class LogRateLimiter: Sendable {
    private let linesPerSecond: Int
    private let state = Locked(State())

    private struct State {
        /// Nil until the first line.
        var windowStart: Duration?
        var written = 0
        var suppressed = 0
    }

    package init(linesPerSecond: Int) {
        self.linesPerSecond = linesPerSecond
    }

    /// Nil: hold this line back. Otherwise write it, with the number of lines held back since
    /// the last one written (0 for none).
    package func admit(now: Duration) -> Int? {
        state.withLock { state in
            if state.windowStart.map({ now - $0 >= .seconds(1) }) ?? true {
                state.windowStart = now
                state.written = 0
            }
            guard state.written < linesPerSecond else {
                state.suppressed += 1
                return nil
            }
            state.written += 1
            defer { state.suppressed = 0 }
            return state.suppressed
        }
    }
}
