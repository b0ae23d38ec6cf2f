/// Whether a command connection keeps its loop polling while it awaits a reply
/// (``EventLoop`` busy polling): only for a lone command (nothing else written and unanswered),
/// and only while such polls catch their replies. Redis on loopback or in the same zone answers
/// within the budget, sooner than a blocked loop would sleep and wake up again; a Redis farther
/// away (or one stalling) makes polls run out, and after a few in a row the connection lets its
/// loop block, polling only for one lone command in ``probeEvery`` to notice when replies are
/// quick again.
///
/// A value on the connection's time line, stepped by the shell; tested without a socket.
struct BusyPollPolicy {
    /// Polls in a row that ran out of budget before the policy stops polling.
    static let missesToPause = 3
    /// While paused, one lone command in this many is polled for.
    static let probeEvery = 32

    /// The longest the loop polls for one reply; zero never polls.
    let budget: Duration
    /// Polls in a row whose reply came after the budget.
    private(set) var missesInARow = 0
    /// Lone commands since the policy paused.
    private var sincePause = 0
    /// When the lone command awaited now was written, and whether the loop polls for it; nil
    /// when none is awaited.
    private var lone: (since: Duration, polled: Bool)?

    init(budget: Duration) {
        self.budget = budget
    }

    /// Whether polls have been running out, so only probes poll.
    var isPaused: Bool {
        missesInARow >= Self.missesToPause
    }

    /// A flush left; `awaiting` commands (it included) are now unanswered. Returns whether the
    /// loop should poll until the reply or the budget.
    mutating func flushed(awaiting: Int, now: Duration) -> Bool {
        guard awaiting == 1, budget > .zero else {
            // Several in flight: the loop has replies coming anyway, and a reply's wait says
            // nothing of the others'.
            lone = nil
            return false
        }
        var polls = true
        if isPaused {
            sincePause += 1
            polls = sincePause % Self.probeEvery == 0
        }
        lone = (now, polls)
        return polls
    }

    /// Bytes arrived; `awaiting` commands are still unanswered. Returns, when they answered a
    /// command polled for, whether the reply came within the budget.
    @discardableResult
    mutating func received(awaiting: Int, now: Duration) -> Bool? {
        guard awaiting == 0, let awaited = lone else { return nil }
        lone = nil
        let caught = now - awaited.since <= budget
        if caught {
            // Caught, or quick enough that a poll would have caught it (an unpolled wait
            // includes the loop's own wake-up).
            missesInARow = 0
            sincePause = 0
        } else if awaited.polled {
            missesInARow += 1
        }
        return awaited.polled ? caught : nil
    }

    /// The connection closed: its lone command, if any, is not answered.
    mutating func closed() {
        lone = nil
    }
}
