/// The values a route's `{name}` segments captured, percent-decoded.
///
/// Routes capture one parameter or none almost always, so the first is stored inline and only
/// further ones go to an array: matching a route allocates no dictionary.
package struct PathParameters: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    package typealias Element = (name: String, value: String)

    private var first: Element?
    private var others: [Element] = []

    package init() {}

    package init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { self[name] = value }
    }

    package var count: Int { first == nil ? 0 : 1 + others.count }

    package var isEmpty: Bool { first == nil }

    /// The value captured for `name`; setting replaces it, or adds it when absent.
    package subscript(name: String) -> String? {
        get {
            if let first, first.name == name { return first.value }
            return others.first { $0.name == name }?.value
        }
        set {
            if let current = first, current.name == name {
                guard let newValue else {
                    first = others.isEmpty ? nil : others.removeFirst()
                    return
                }
                first = (name, newValue)
            } else if let index = others.firstIndex(where: { $0.name == name }) {
                if let newValue { others[index].value = newValue } else { others.remove(at: index) }
            } else if let newValue {
                if first == nil { first = (name, newValue) } else { others.append((name, newValue)) }
            }
        }
    }

    package func makeIterator() -> IndexingIterator<[Element]> {
        ((first.map { [$0] } ?? []) + others).makeIterator()
    }

    package static func == (lhs: PathParameters, rhs: PathParameters) -> Bool {
        lhs.count == rhs.count && lhs.allSatisfy { rhs[$0.name] == $0.value }
    }
}
