import RESP

/// The settings of a command connection, with the defaults the service starts from.
///
/// A command's own deadline is not here: every caller passes one (`submit(_:deadline:now:)`),
/// because a cache miss shares one Redis budget across all of its commands.
package struct RedisCommandConnectionConfiguration: Sendable, Equatable {
    /// From the connect request to the end of the handshake. 1 s: on a LAN this takes about a
    /// millisecond, so only a dead or overloaded server hits it; commands queued meanwhile are
    /// bounded by their own (shorter) deadlines, not by this.
    package var connectTimeout: Duration
    /// How long the oldest written command may stay unanswered before the connection is judged
    /// dead, closed and reopened. 2 s: far beyond any caller's deadline (callers have given up
    /// long before), so it only decides how soon a silent peer (frozen process, lost network, no
    /// FIN) is noticed, while a healthy server's rare pauses (a large `DEL`, a fork) of a few
    /// hundred milliseconds never cost a reconnect.
    package var unansweredReplyLimit: Duration
    /// Requests waiting at once (written and unanswered, including abandoned ones, plus queued
    /// ones): beyond it, new ones fail at once. 1024 is far above what one loop's concurrent
    /// misses need, and keeps a stalled server from growing the queue without bound.
    package var maxPendingCommands: Int
    package var backoff: ReconnectBackoff
    package var replyLimits: RESPLimits
    /// The longest the loop polls without blocking for the reply to a lone command
    /// (``BusyPollPolicy``); zero blocks as usual. 100 µs: above a loopback or same-zone round
    /// trip, so a reply that comes at all comes within it, and at most that much CPU per command
    /// when it does not.
    package var busyPoll: Duration

    package init(
        connectTimeout: Duration = .seconds(1),
        unansweredReplyLimit: Duration = .seconds(2),
        maxPendingCommands: Int = 1024,
        backoff: ReconnectBackoff = ReconnectBackoff(),
        replyLimits: RESPLimits = RESPLimits(),
        busyPoll: Duration = .microseconds(100)
    ) {
        self.connectTimeout = connectTimeout
        self.unansweredReplyLimit = unansweredReplyLimit
        self.maxPendingCommands = maxPendingCommands
        self.backoff = backoff
        self.replyLimits = replyLimits
        self.busyPoll = busyPoll
    }
}
