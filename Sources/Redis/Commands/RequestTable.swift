/// Values filed by request id (a connection's waiting callers), for ids given in submission
/// order that mostly complete in it: a window of slots from the oldest id still filed stands in
/// for a dictionary, so filing and taking one is an index, with no hashing. A request taken out
/// of order (cancelled, refused at once) leaves an empty slot until the ones before it go too.
struct RequestTable<Value> {
    private var slots: [Value?] = []
    /// The index in `slots` of the oldest id still filed (or of the next one, when none is).
    private var head = 0
    /// The id of `slots[head]`.
    private var headID: UInt64 = 0

    /// Whether no value is filed.
    var isEmpty: Bool { head == slots.count }

    /// Files `value` under `id`, which must come after every id filed so far.
    mutating func file(_ value: Value, under id: RedisRequestID) {
        if isEmpty {
            slots.removeAll(keepingCapacity: true)
            head = 0
            headID = id.value
        }
        let end = headID + UInt64(slots.count - head)
        precondition(id.value >= end, "request \(id) filed out of order")
        // Ids are consecutive; a gap would be ids submitted without a caller filed.
        for _ in end..<id.value { slots.append(nil) }
        slots.append(value)
    }

    /// Takes the value filed under `id`, if any.
    mutating func take(_ id: RedisRequestID) -> Value? {
        guard id.value >= headID, id.value - headID < UInt64(slots.count - head) else { return nil }
        let index = head + Int(id.value - headID)
        guard let value = slots[index] else { return nil }
        slots[index] = nil
        while head < slots.count, slots[head] == nil {
            head += 1
            headID += 1
        }
        // The slots before `head` are spent: drop them once they are most of the array.
        if head >= 32, head * 2 >= slots.count {
            slots.removeFirst(head)
            head = 0
        }
        return value
    }
}
