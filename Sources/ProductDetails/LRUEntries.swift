/// A cache entry with its cost and the three time windows that govern how it may be served.
struct CacheEntry<Key: Hashable, Value> {
    var key: Key
    var value: Value
    var cost: Int
    var storedAt: Duration
    var freshFor: Duration
    var staleIfError: Duration
    var staleWhileRevalidate: Duration
    /// Other keys whose invalidation makes this entry unservable.
    var dependencies: ArraySlice<Key> = []
    /// The generation the load that made it started at: a dependency invalidated after it
    /// reaches the entry.
    var token = LoadToken(generation: 0)
    /// The generation at which its dependencies were last found valid; while nothing has been
    /// invalidated since, a lookup need not check them again.
    var checkedAt: UInt64 = 0
}

/// The storage of ``ResponseCache``: entries in array slots threaded on an intrusive doubly linked
/// list from most to least recently used, plus a key → slot index.
///
/// Every operation is O(1): touching moves a slot to the front by relinking two neighbours,
/// eviction unlinks the back. Freed slots are reused through a free list, so a steady-state cache
/// never grows its arrays. A plain value type with no locks: ``ResponseCache`` owns the lock.
struct LRUEntries<Key: Hashable, Value> {
    private struct Slot {
        var entry: CacheEntry<Key, Value>?
        /// Toward the most recently used end; `nil` at the front.
        var newer: Int?
        /// Toward the least recently used end; `nil` at the back.
        var older: Int?
    }

    private var slots: [Slot] = []
    private var freeSlots: [Int] = []
    private var slotByKey: [Key: Int] = [:]
    private var newest: Int?
    private var oldest: Int?
    private(set) var totalCost = 0

    var count: Int { slotByKey.count }

    /// Where `key`'s entry is, for ``entry(at:)`` and ``touch(at:)``: a lookup that reads and then
    /// touches hashes the key once.
    func position(of key: Key) -> Int? {
        slotByKey[key]
    }

    func entry(at position: Int) -> CacheEntry<Key, Value>? {
        slots[position].entry
    }

    /// Notes that the entry at `position` had its dependencies checked at `generation`.
    mutating func markChecked(at position: Int, generation: UInt64) {
        slots[position].entry?.checkedAt = generation
    }

    /// Moves the entry at `position` to the most recently used end.
    mutating func touch(at position: Int) {
        unlink(position)
        linkAtFront(position)
    }

    /// The entry for `key`, moved to the most recently used position.
    mutating func touch(_ key: Key) -> CacheEntry<Key, Value>? {
        guard let slot = slotByKey[key] else { return nil }
        touch(at: slot)
        return slots[slot].entry
    }

    /// Inserts or replaces the entry for its key, as the most recently used. Consumed: the slot
    /// takes the caller's entry rather than a copy (one retain fewer for each of its references).
    mutating func insert(_ entry: consuming CacheEntry<Key, Value>) {
        let key = entry.key
        let cost = entry.cost
        remove(key)
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            slots[slot] = Slot(entry: entry)
        } else {
            slot = slots.count
            slots.append(Slot(entry: entry))
        }
        slotByKey[key] = slot
        totalCost += cost
        linkAtFront(slot)
    }

    @discardableResult
    mutating func remove(_ key: Key) -> CacheEntry<Key, Value>? {
        guard let slot = slotByKey.removeValue(forKey: key) else { return nil }
        return release(slot)
    }

    /// Removes and returns the least recently used entry.
    mutating func removeOldest() -> CacheEntry<Key, Value>? {
        guard let slot = oldest, let key = slots[slot].entry?.key else { return nil }
        slotByKey[key] = nil
        return release(slot)
    }

    mutating func removeAll() {
        self = LRUEntries()
    }

    /// Keys from most to least recently used (O(n); for tests and diagnostics).
    var keysByRecency: [Key] {
        var keys: [Key] = []
        var cursor = newest
        while let slot = cursor {
            if let key = slots[slot].entry?.key { keys.append(key) }
            cursor = slots[slot].older
        }
        return keys
    }

    private mutating func release(_ slot: Int) -> CacheEntry<Key, Value>? {
        unlink(slot)
        // Moved out, not copied and then cleared.
        let entry = slots[slot].entry.take()
        totalCost -= entry?.cost ?? 0
        freeSlots.append(slot)
        return entry
    }

    private mutating func linkAtFront(_ slot: Int) {
        slots[slot].newer = nil
        slots[slot].older = newest
        if let front = newest { slots[front].newer = slot }
        newest = slot
        if oldest == nil { oldest = slot }
    }

    private mutating func unlink(_ slot: Int) {
        let newer = slots[slot].newer
        let older = slots[slot].older
        if let newer { slots[newer].older = older } else if newest == slot { newest = older }
        if let older { slots[older].newer = newer } else if oldest == slot { oldest = newer }
        slots[slot].newer = nil
        slots[slot].older = nil
    }
}

extension CacheEntry: Sendable where Key: Sendable, Value: Sendable {}
