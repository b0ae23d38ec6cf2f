/// When a loop polls for I/O without blocking: while a holder awaits a reply it expects within
/// microseconds (a Redis command with nothing else in flight), a loop that blocked in poll would
/// pay a sleep and a wake-up (on a virtual machine, longer than such a reply takes) just before
/// the reply arrives. Polling instead costs the time until the reply, bounded by
/// each holder's budget.
///
/// A value on the loop's monotonic nanoseconds, so its rules are tested without a loop;
/// ``EventLoop`` keeps one and starts or stops its idle handle as it answers. The time spent
/// polling so counts as idle for ``EventLoop/utilization``: the loop would have been waiting.
struct LoopBusyPoll {
    /// Holders that began and have not ended (a holder whose budget ran out still counts).
    private(set) var holders = 0
    /// When the current polling stops at the latest.
    private var deadline: UInt64 = 0
    /// When the current polling began; nil while the loop may block.
    private var since: UInt64?
    /// Polling time of the spans that ended.
    private var polled: UInt64 = 0

    var isPolling: Bool { since != nil }

    /// A holder begins awaiting, for at most `budget` nanoseconds. Returns whether the loop must
    /// start polling without blocking (it was not).
    mutating func begin(budget: UInt64, now: UInt64) -> Bool {
        holders += 1
        deadline = max(deadline, now &+ budget)
        guard since == nil else { return false }
        since = now
        return true
    }

    /// A holder got what it awaited (or gave up). Returns whether the loop may block again: the
    /// last holder ended.
    mutating func end(now: UInt64) -> Bool {
        holders = max(0, holders - 1)
        guard holders == 0 else { return false }
        return stop(now: now)
    }

    /// A turn of the polling loop. Returns whether the loop may block again: every budget ran out.
    mutating func turn(now: UInt64) -> Bool {
        guard now >= deadline else { return false }
        return stop(now: now)
    }

    /// Nanoseconds spent polling so far, the current span included.
    func polledTime(now: UInt64) -> UInt64 {
        polled &+ (since.map { now &- $0 } ?? 0)
    }

    private mutating func stop(now: UInt64) -> Bool {
        guard let since else { return false }
        polled &+= now &- since
        self.since = nil
        return true
    }
}
