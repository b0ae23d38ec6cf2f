/// The short queue of loads waiting for room at their upstreams: controlled delay, adaptive LIFO
/// (Facebook's "Fail at scale", after CoDel).
///
/// While the queue has been empty at some time in the last ``Policy/interval``, a load waits at
/// most that long, first come first served: a burst is absorbed. Once it has stood longer, the
/// upstreams are overloaded, not bursty: a load waits at most ``Policy/target`` and the newest is
/// served first, since the oldest are the ones whose callers have most likely given up. Loads
/// that waited too long are refused; ``nextExpiry(at:)`` says when the next one will be, so one
/// timer serves the whole queue.
///
/// A queue held to its target is short, and a few answers arriving together can empty it for a
/// moment; so overload lasts until no load was refused for an interval, not only while the queue
/// stands (else each such moment would start another interval of long waits, first come first
/// served, in the middle of an overload).
package struct AdmissionQueue<Ticket: Hashable & Sendable>: Sendable {
    package struct Policy: Sendable, Equatable {
        package var target: Duration
        package var interval: Duration
        /// More waiting loads than this are refused at once, however young.
        package var capacity: Int

        package init(target: Duration = .milliseconds(5), interval: Duration = .milliseconds(100), capacity: Int = 1_024) {
            self.target = target
            self.interval = max(target, interval)
            self.capacity = max(1, capacity)
        }
    }

    package struct Entry: Sendable {
        package let ticket: Ticket
        package let enqueued: Duration
    }

    package let policy: Policy
    /// Oldest first.
    private var entries: [Entry] = []
    private var head = 0
    /// When the queue was last empty.
    private var emptySince: Duration = .zero
    /// When a load last waited longer than it may.
    private var lastExpiry: Duration?

    package init(policy: Policy = Policy()) {
        self.policy = policy
    }

    package var count: Int { entries.count - head }
    package var isEmpty: Bool { count == 0 }
    package var isFull: Bool { count >= policy.capacity }

    /// Whether the upstreams are overloaded: the queue has not been empty for the last
    /// ``Policy/interval``, or a load waited longer than it may within it.
    package func isStanding(at now: Duration) -> Bool {
        if let lastExpiry, now - lastExpiry < policy.interval { return true }
        return !isEmpty && now - emptySince >= policy.interval
    }

    /// How long a load may wait at `now`.
    package func allowance(at now: Duration) -> Duration {
        isStanding(at: now) ? policy.target : policy.interval
    }

    /// Queues `ticket` (the caller checked ``isFull``).
    package mutating func enqueue(_ ticket: Ticket, at now: Duration) {
        // It was empty until now.
        if isEmpty { emptySince = now }
        entries.append(Entry(ticket: ticket, enqueued: now))
    }

    /// The load to admit next: the newest while the queue stands, else the oldest.
    package func next(at now: Duration) -> Entry? {
        guard !isEmpty else { return nil }
        return isStanding(at: now) ? entries[entries.count - 1] : entries[head]
    }

    /// Takes the entry ``next(at:)`` returned.
    @discardableResult
    package mutating func takeNext(at now: Duration) -> Entry? {
        guard !isEmpty else { return nil }
        let entry: Entry
        if isStanding(at: now) {
            entry = entries.removeLast()
        } else {
            entry = entries[head]
            head += 1
        }
        settle(at: now)
        return entry
    }

    /// Removes `ticket` (its caller left); `false` when it is not queued.
    @discardableResult
    package mutating func remove(_ ticket: Ticket, at now: Duration) -> Bool {
        guard let index = entries[head...].firstIndex(where: { $0.ticket == ticket }) else { return false }
        entries.remove(at: index)
        settle(at: now)
        return true
    }

    /// Takes every load that has waited longer than it may at `now`, oldest first.
    package mutating func expire(at now: Duration) -> [Entry] {
        var expired: [Entry] = []
        while !isEmpty, now - entries[head].enqueued > allowance(at: now) {
            expired.append(entries[head])
            head += 1
        }
        if !expired.isEmpty {
            lastExpiry = now
            settle(at: now)
        }
        return expired
    }

    /// When the oldest load's wait will next run out (`nil` when nothing waits): at the end of its
    /// interval, or at its target if the queue stands then (after a recent refusal, or once it
    /// will have stood an interval).
    package func nextExpiry(at now: Duration) -> Duration? {
        guard !isEmpty else { return nil }
        let oldest = entries[head].enqueued
        let atTarget = oldest + policy.target
        if let lastExpiry, atTarget < lastExpiry + policy.interval { return atTarget + .nanoseconds(1) }
        let standsAt = emptySince + policy.interval
        return min(oldest + policy.interval, max(standsAt, atTarget)) + .nanoseconds(1)
    }

    private mutating func settle(at now: Duration) {
        if isEmpty {
            entries.removeAll(keepingCapacity: true)
            head = 0
            emptySince = now
        } else if head > 64, head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }
}
