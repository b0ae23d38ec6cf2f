/// An aggregate reply whose header was read and whose elements are still arriving.
///
/// The parser keeps these on a stack instead of recursing, so nesting costs heap, bounded by
/// `RESPLimits.maxDepth`, never stack; and elements already parsed survive between calls, so
/// their bytes are consumed and never scanned again.
struct AggregateFrame: Sendable {
    enum Kind: Sendable {
        case array, set, push, map, attribute
    }

    let kind: Kind
    /// Elements still expected; for a map or attribute, entries (each a key then a value).
    private var remaining: Int
    private var elements: [RESPValue] = []
    private var entries: [RESPMapEntry] = []
    /// A map's key whose value has not arrived yet.
    private var pendingKey: RESPValue?

    /// Capacity reserved up front at most: the declared count is only a claim until the
    /// elements arrive, and reserving it whole would let a header alone allocate memory.
    private static let maxReservedCapacity = 1024

    /// - Parameter count: at least 1; empty aggregates never open a frame.
    init(kind: Kind, count: Int) {
        self.kind = kind
        self.remaining = count
        switch kind {
        case .array, .set, .push: elements.reserveCapacity(min(count, Self.maxReservedCapacity))
        case .map: entries.reserveCapacity(min(count, Self.maxReservedCapacity))
        case .attribute: break
        }
    }

    /// Adds the next element and returns whether the aggregate is now complete.
    mutating func append(_ value: RESPValue) -> Bool {
        switch kind {
        case .array, .set, .push:
            elements.append(value)
        case .map, .attribute:
            guard let key = pendingKey else {
                pendingKey = value
                return false
            }
            pendingKey = nil
            // Attributes are checked but not kept: no command we send asks for them.
            if kind == .map { entries.append(RESPMapEntry(key: key, value: value)) }
        }
        remaining -= 1
        return remaining == 0
    }

    /// The finished value, or nil for an attribute, which annotates the next value instead of
    /// being one.
    consuming func finish() -> RESPValue? {
        switch kind {
        case .array: .array(elements)
        case .set: .set(elements)
        case .push: .push(elements)
        case .map: .map(entries)
        case .attribute: nil
        }
    }

    /// The value of an aggregate declared with no elements (nil for an attribute).
    static func empty(_ kind: Kind) -> RESPValue? {
        switch kind {
        case .array: .array([])
        case .set: .set([])
        case .push: .push([])
        case .map: .map([])
        case .attribute: nil
        }
    }
}
