/// The earliest deadline among the live commands of a ``PendingQueue``, kept up to date as
/// commands come and go instead of found by a scan at every event of the connection.
///
/// Commands leave a queue in the order they came, so this is a sliding-window minimum: it keeps
/// only the deadlines that can still become the earliest, increasing from first to last, each
/// with its command's sequence number; a new command's deadline drops every kept one that is
/// not earlier (that command leaves before it). The earliest is then the first. Appending and
/// taking the oldest cost O(1) amortized. A command abandoned out of order (its caller timed out
/// or was cancelled) may be one the others were dropped for, so the queue rebuilds this then.
struct EarliestDeadline: Sendable {
    private struct Entry: Sendable {
        let sequence: Int
        let deadline: Duration
    }

    private var entries: [Entry] = []
    private var start = 0

    /// The earliest deadline kept; `nil` when no live command is.
    var earliest: Duration? {
        start < entries.count ? entries[start].deadline : nil
    }

    /// A live command joined the queue at `sequence`, after every command kept.
    mutating func append(_ deadline: Duration, sequence: Int) {
        while entries.count > start, entries[entries.count - 1].deadline >= deadline {
            entries.removeLast()
        }
        entries.append(Entry(sequence: sequence, deadline: deadline))
    }

    /// The oldest command of the queue, at `sequence`, left it.
    mutating func removeOldest(sequence: Int) {
        guard start < entries.count, entries[start].sequence == sequence else { return }
        start += 1
        if start == entries.count {
            removeAll()
        } else if start >= 32 && start * 2 >= entries.count {
            entries.removeFirst(start)
            start = 0
        }
    }

    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
        start = 0
    }
}
