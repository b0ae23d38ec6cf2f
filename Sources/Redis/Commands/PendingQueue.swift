import RESP

/// The requests of one connection in the order their replies will come.
///
/// An array read from a moving head, so taking the oldest is O(1) and the storage is reused
/// (compacted once the consumed part dominates) instead of shifting on every reply. The earliest
/// deadline of a live command, which the connection's timer follows at every event, is kept as
/// commands come and go (``EarliestDeadline``), not found by a scan: a pipeline hundreds deep
/// while Redis is slow would otherwise cost each new command a pass over all of them.
struct PendingQueue: Sendable {
    private var storage: [PendingCommand] = []
    private var head = 0
    /// The sequence number of `storage[0]`: commands taken before it, since the queue was emptied.
    private var base = 0
    private var deadlines = EarliestDeadline()

    var isEmpty: Bool { head == storage.count }
    var count: Int { storage.count - head }
    var first: PendingCommand? { isEmpty ? nil : storage[head] }

    mutating func append(_ command: PendingCommand) {
        if !command.isAbandoned { deadlines.append(command.deadline, sequence: base + storage.count) }
        storage.append(command)
    }

    /// Takes `reply` as a leading reply of the oldest request (``PendingCommand/leadingReplies``)
    /// if it still awaits one, keeping it if it is the first error: true when it was, to be
    /// dropped.
    mutating func dropsLeadingReply(_ reply: RESPValue) -> Bool {
        guard !isEmpty, storage[head].leadingReplies > 0 else { return false }
        storage[head].leadingReplies -= 1
        if storage[head].leadingError == nil, reply.errorMessage != nil { storage[head].leadingError = reply }
        return true
    }

    mutating func popFirst() -> PendingCommand? {
        guard !isEmpty else { return nil }
        let command = storage[head]
        deadlines.removeOldest(sequence: base + head)
        head += 1
        if head == storage.count {
            base += storage.count
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 32 && head * 2 >= storage.count {
            base += head
            storage.removeFirst(head)
            head = 0
        }
        return command
    }

    /// The earliest deadline of a caller still waiting.
    var earliestLiveDeadline: Duration? {
        deadlines.earliest
    }

    /// Whether any caller still waits (abandoned slots wait for nobody): the earliest deadline
    /// is kept exactly when one does.
    var hasLiveCommands: Bool {
        deadlines.earliest != nil
    }

    /// Marks every live command whose deadline is at or before `now` abandoned, and returns
    /// their IDs in order.
    mutating func abandonExpired(now: Duration) -> [RedisRequestID] {
        var expired: [RedisRequestID] = []
        for index in head..<storage.count where !storage[index].isAbandoned && storage[index].deadline <= now {
            storage[index].isAbandoned = true
            expired.append(storage[index].id)
        }
        if !expired.isEmpty { rebuildDeadlines() }
        return expired
    }

    /// Marks the command `id` abandoned, if it is here and still live; true when it was.
    mutating func abandon(_ id: RedisRequestID) -> Bool {
        guard let index = storage[head...].firstIndex(where: { $0.id == id }), !storage[index].isAbandoned else { return false }
        storage[index].isAbandoned = true
        rebuildDeadlines()
        return true
    }

    /// The kept deadlines anew, from the live commands: after one left out of order.
    private mutating func rebuildDeadlines() {
        deadlines.removeAll()
        for index in head..<storage.count where !storage[index].isAbandoned {
            deadlines.append(storage[index].deadline, sequence: base + index)
        }
    }

    /// Empties the queue and returns the IDs whose callers still wait, in order.
    mutating func removeAll() -> [RedisRequestID] {
        let live = storage[head...].filter { !$0.isAbandoned }.map(\.id)
        empty()
        return live
    }

    /// Empties the queue and returns the commands themselves, for writing them elsewhere.
    mutating func takeAll() -> [PendingCommand] {
        let all = Array(storage[head...])
        empty()
        return all
    }

    private mutating func empty() {
        storage.removeAll()
        head = 0
        base = 0
        deadlines.removeAll()
    }
}
