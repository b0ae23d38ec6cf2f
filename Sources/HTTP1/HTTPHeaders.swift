/// Ordered header fields, kept exactly as received (names keep their case, repeated
/// fields stay separate lines) because field order and multiplicity carry meaning.
/// Lookups compare names ASCII case-insensitively over the UTF-8 views, so they
/// never allocate.
package struct HTTPHeaders: Sendable, Sequence, Equatable, ExpressibleByDictionaryLiteral {
    package typealias Element = (name: String, value: String)

    private var fields: [Element]

    package init() {
        fields = []
    }

    /// Builds headers from ordered pairs; unlike a dictionary literal this reads
    /// naturally when the same name repeats.
    package init(_ fields: [(name: String, value: String)]) {
        self.fields = fields
    }

    package init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// Room for `capacity` fields, so adding them one by one does not regrow the storage.
    package mutating func reserveCapacity(_ capacity: Int) {
        fields.reserveCapacity(capacity)
    }

    package var count: Int { fields.count }

    package var isEmpty: Bool { fields.isEmpty }

    package mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces the first field called `name` (keeping its position), drops any
    /// further ones, or appends when there is none.
    package mutating func replaceOrAdd(name: String, value: String) {
        guard let first = fields.firstIndex(where: { Self.namesMatch($0.name, name) }) else {
            add(name: name, value: value)
            return
        }
        fields[first] = (name: name, value: value)
        var index = fields.index(after: first)
        while index < fields.endIndex {
            if Self.namesMatch(fields[index].name, name) {
                fields.remove(at: index)
            } else {
                index += 1
            }
        }
    }

    package mutating func remove(name: String) {
        fields.removeAll { Self.namesMatch($0.name, name) }
    }

    /// The first value of `name`, or nil.
    package subscript(name: String) -> String? {
        fields.first { Self.namesMatch($0.name, name) }?.value
    }

    /// Every value of `name`, in order.
    package func values(_ name: String) -> [String] {
        fields.compactMap { Self.namesMatch($0.name, name) ? $0.value : nil }
    }

    package func contains(_ name: String) -> Bool {
        fields.contains { Self.namesMatch($0.name, name) }
    }

    /// How many field lines are called `name` (e.g. to detect a repeated Host).
    package func count(of name: String) -> Int {
        var total = 0
        for field in fields where Self.namesMatch(field.name, name) {
            total += 1
        }
        return total
    }

    /// True when a comma-separated list header (e.g. Connection) contains `token`,
    /// case-insensitively, across all lines of that header.
    package func containsToken(_ token: String, in name: String) -> Bool {
        for field in fields where Self.namesMatch(field.name, name) {
            for element in CommaSeparatedElements(field.value)
            where ASCII.equalsIgnoringCase(element, token.utf8) {
                return true
            }
        }
        return false
    }

    package func makeIterator() -> IndexingIterator<[Element]> {
        fields.makeIterator()
    }

    /// Equal when the same fields appear in the same order; names compare
    /// case-insensitively (they are case-insensitive on the wire), values exactly.
    package static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        guard lhs.fields.count == rhs.fields.count else { return false }
        for (left, right) in zip(lhs.fields, rhs.fields) {
            guard namesMatch(left.name, right.name), left.value == right.value else { return false }
        }
        return true
    }

    /// Length first (O(1) for native strings), then a byte loop over contiguous storage: header
    /// lookups run several times per request.
    @inline(__always)
    static func namesMatch(_ a: String, _ b: String) -> Bool {
        let left = a.utf8
        let right = b.utf8
        guard left.count == right.count else { return false }
        let fast = left.withContiguousStorageIfAvailable { lhs in
            right.withContiguousStorageIfAvailable { rhs in
                for index in 0..<lhs.count where ASCII.lowercased(lhs[index]) != ASCII.lowercased(rhs[index]) {
                    return false
                }
                return true
            }
        }
        return (fast ?? nil) ?? ASCII.equalsIgnoringCase(left, right)
    }
}
