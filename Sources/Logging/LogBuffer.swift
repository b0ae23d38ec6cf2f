import JSON
import ProductDetails

/// The log lines waiting for the writer thread: bounded, with the rule for what goes when the
/// sink falls behind. Pure: the caller holds the lock and says what time it is.
///
/// Request lines (and debug lines) may fill three quarters of `capacity`; the last quarter is
/// kept for warn, error and lifecycle lines, so a flood of requests cannot crowd out the lines
/// that explain it. A line that does not fit is dropped and counted; the next batch the writer
/// takes after drops opens with one line saying how many were dropped and between which instants.
struct LogBuffer {
    /// Which lines give way first.
    enum Kind: Sendable {
        /// One line per answered request, and debug lines: dropped first.
        case request
        /// Warn, error, lifecycle and other info lines: kept while any room is left.
        case kept
    }

    let capacity: Int
    private(set) var pending: [UInt8] = []
    private var spare: [UInt8] = []
    private var timestamp = LogTimestamp()
    /// Lines dropped since start, by kind.
    private(set) var droppedRequestLines = 0
    private(set) var droppedOtherLines = 0
    /// Drops not yet reported in a line of their own.
    private var unreported = 0
    private var firstUnreported = LogInstant(seconds: 0, milliseconds: 0)
    private var lastUnreported = LogInstant(seconds: 0, milliseconds: 0)

    init(capacity: Int) {
        precondition(capacity >= 1024, "a log buffer holds at least a few lines")
        self.capacity = capacity
        pending.reserveCapacity(capacity + Self.slack)
        spare.reserveCapacity(capacity + Self.slack)
    }

    /// Room past `capacity` reserved so that a line written before its size is known does not
    /// make the array grow; a longer line grows it once.
    private static let slack = 4096

    var isEmpty: Bool { pending.isEmpty && unreported == 0 }
    var pendingBytes: Int { pending.count }

    /// Appends `{"time":"…",` and what `body` writes (the rest of the object and its newline),
    /// or drops the line when it does not fit its kind's share; returns whether it was kept.
    @discardableResult
    mutating func append(_ kind: Kind, at now: LogInstant, body: (inout JSONBytesWriter) -> Void) -> Bool {
        let start = pending.count
        var json = JSONBytesWriter(adopting: &pending)
        json.raw(#"{"time":""#)
        json.raw(timestamp.text(for: now))
        json.raw(#"","#)
        body(&json)
        pending = json.release()
        let limit = kind == .request ? capacity - capacity / 4 : capacity
        if pending.count <= limit { return true }
        pending.removeSubrange(start...)
        switch kind {
        case .request: droppedRequestLines += 1
        case .kept: droppedOtherLines += 1
        }
        if unreported == 0 { firstUnreported = now }
        unreported += 1
        lastUnreported = now
        return false
    }

    /// Hands the pending lines to the writer and starts a new batch (on the storage of the one
    /// given back last time), opening it with the drop report when lines were dropped.
    mutating func takePending(at now: LogInstant) -> [UInt8] {
        var batch = spare
        spare = []
        batch.removeAll(keepingCapacity: true)
        swap(&batch, &pending)
        if unreported > 0 { appendDropReport(at: now) }
        return batch
    }

    /// A written batch's storage, kept for the next `takePending`.
    mutating func recycle(_ batch: consuming [UInt8]) {
        spare = batch
    }

    private mutating func appendDropReport(at now: LogInstant) {
        let count = unreported
        let first = timestamp.text(for: firstUnreported)
        let last = timestamp.text(for: lastUnreported)
        unreported = 0
        append(.kept, at: now) { json in
            json.raw(#""level":"warn","msg":"log lines dropped: the log sink did not keep up","dropped":"#)
            json.int(count)
            json.raw(#","firstDropped":""#)
            json.raw(first)
            json.raw(#"","lastDropped":""#)
            json.raw(last)
            json.raw("\"}\n")
        }
    }
}
