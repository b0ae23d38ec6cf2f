/// The share of a loop's time spent working rather than waiting in poll, over the time since the
/// previous reading (at least ``window``), from libuv's idle-time metric (`UV_METRICS_IDLE_TIME`,
/// which ``EventLoop`` enables when it makes the loop: the time blocked in poll). A loop that never
/// waits is saturated: work it is handed queues behind what it already has.
///
/// A value fed the readings, so its arithmetic is tested without a loop; ``EventLoop/utilization``
/// feeds it on the loop's thread.
struct LoopUtilization {
    /// The shortest span a reading averages over, in nanoseconds: shorter ones would follow
    /// single turns of the loop.
    static let window: UInt64 = 100_000_000
    private var since: UInt64?
    private var idleSince: UInt64 = 0
    private var latest = 0.0

    /// The utilization over the span that ended last, from 0 (all idle) to 1 (never idle), given
    /// the monotonic time `now` and the loop's total idle time `idle` so far (both nanoseconds);
    /// `idle` is read only when a span ends.
    mutating func read(now: UInt64, idle: () -> UInt64) -> Double {
        if let since, now &- since < Self.window { return latest }
        let idleNow = idle()
        if let since {
            let elapsed = now - since
            latest = 1 - Double(min(idleNow &- idleSince, elapsed)) / Double(elapsed)
        }
        since = now
        idleSince = idleNow
        return latest
    }
}
