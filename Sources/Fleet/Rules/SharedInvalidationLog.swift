import ProductDetails
/// What this replica knows of the fleet's invalidations, to judge a page read from the shared
/// cache by the products it shows besides its own, and by the invalidations of everything.
///
/// Every invalidation the fleet sends has a sequence (from Redis, strictly increasing), and every
/// page stored in the shared cache is stamped with the latest sequence its loader knew when the
/// load began. A page is refused when everything, or a product it shows, was invalidated after
/// its stamp (its own product's invalidation changed the key's generation already). The
/// knowledge comes from the broadcast, and from the log in Redis read at each subscription, so no
/// read touches another product's keys (the check is local, whatever the number of products a
/// page shows). A page stamped before what this replica can judge (`knownFrom`: before the log it
/// read, or before what it had to forget) is refused too: a reload, never an old price.
struct SharedInvalidationLog {
    /// Sequences from which every invalidation is known; `.max` until the log was read.
    var knownFrom: UInt64 {
        guard let historyFrom else { return .max }
        return max(historyFrom, forgottenThrough)
    }
    /// Where the log read at the last subscription began; nil while it is not read yet.
    private var historyFrom: UInt64?
    /// The newest entry forgotten to bound memory: pages stamped before it cannot be judged.
    private var forgottenThrough: UInt64 = 0
    /// The latest sequence known: what a load starting now stamps its page with.
    private(set) var latest: UInt64 = 0
    private var everythingAt: UInt64 = 0
    private var invalidatedAt: [String: UInt64] = [:]
    /// The newest sequence recorded for any one product (kept when its entry is forgotten): a
    /// page stamped at or after it shows no product invalidated since, without a look-up per id.
    private var newestProductEntry: UInt64 = 0
    /// Per-product entries oldest first (entries before `head` are forgotten), to bound memory.
    private var history: [(sequence: UInt64, id: String)] = []
    private var head = 0
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Returns whether it taught anything new (a message seen before, or the sender's own
    /// invalidation coming back, teaches nothing).
    @discardableResult
    mutating func record(_ sequence: UInt64, ids: [String]) -> Bool {
        latest = max(latest, sequence)
        var learned = false
        for id in ids where invalidatedAt[id, default: 0] < sequence {
            invalidatedAt[id] = sequence
            newestProductEntry = max(newestProductEntry, sequence)
            history.append((sequence, id))
            learned = true
        }
        while history.count - head > capacity {
            let forgotten = history[head]
            head += 1
            if invalidatedAt[forgotten.id] == forgotten.sequence { invalidatedAt[forgotten.id] = nil }
            forgottenThrough = max(forgottenThrough, forgotten.sequence)
        }
        if head > capacity {
            history.removeFirst(head)
            head = 0
        }
        return learned
    }

    @discardableResult
    mutating func recordEverything(_ sequence: UInt64) -> Bool {
        latest = max(latest, sequence)
        guard everythingAt < sequence else { return false }
        everythingAt = sequence
        return true
    }

    /// Counts subscriptions: a log read for an earlier one may predate a later gap.
    private(set) var subscription = 0

    /// The subscription (re)started: messages may have been missed until the log is read.
    /// Returns the ticket under which to ``apply(_:for:)`` it.
    mutating func awaitHistory() -> Int {
        historyFrom = nil
        subscription += 1
        return subscription
    }

    /// Applies the log read from Redis for subscription `ticket`; from now on pages stamped at
    /// or after its start can be judged. A log read for an older subscription is ignored.
    mutating func apply(_ history: SharedInvalidationHistory, for ticket: Int) {
        guard ticket == subscription else { return }
        for entry in history.entries {
            if let id = entry.id { record(entry.sequence, ids: [id]) } else { recordEverything(entry.sequence) }
        }
        latest = max(latest, history.knownFrom)
        historyFrom = history.knownFrom
    }

    /// Whether a page stamped `stamp` that shows `dependencies` (besides its own product) may be
    /// served: nothing was invalidated everywhere after its stamp, and none of the products it
    /// shows after it either, as far as can be judged.
    func accepts(dependencies: some Collection<String>, stamp: UInt64) -> Bool {
        guard knownFrom != .max, stamp >= knownFrom, stamp >= everythingAt else { return false }
        if stamp >= newestProductEntry { return true }
        return dependencies.allSatisfy { (invalidatedAt[$0] ?? 0) <= stamp }
    }
}
