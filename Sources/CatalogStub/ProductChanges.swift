import Locking

/// The products changed through `PUT /control/products/{id}`, by catalog index, consulted on every
/// product and suggestion answer. The catalog stays a pure function of its seed; a change lives
/// here, beside it, until it is deleted.
///
/// Shared by every loop: one short lock per answer (no I/O and no product generation under it),
/// so a change is in every answer that starts after its `PUT` was answered.
final class ProductChanges: Sendable {
    /// Far more products than a benchmark changes; at most about 16 MiB of names.
    static let defaultCapacity = 65_536

    let capacity: Int
    private let changes = Locked([Int: ProductChange]())

    init(capacity: Int = ProductChanges.defaultCapacity) {
        precondition(capacity >= 1, "the table holds at least one change")
        self.capacity = capacity
    }

    /// Replaces the change of the product at `index`; false, and nothing changed, when the table
    /// is full and that product has no change yet.
    func set(_ change: ProductChange, at index: Int) -> Bool {
        changes.withLock { changes in
            guard changes.count < capacity || changes[index] != nil else { return false }
            changes[index] = change
            return true
        }
    }

    func remove(at index: Int) {
        _ = changes.withLock { $0.removeValue(forKey: index) }
    }

    func removeAll() {
        changes.withLock { $0.removeAll() }
    }

    /// Products with a change right now.
    var count: Int {
        changes.withLock { $0.count }
    }

    /// The catalog's product at `index` as it is now, change included.
    func product(at index: Int, in catalog: Catalog) -> StubProduct {
        let change = changes.withLock { $0.isEmpty ? nil : $0[index] }
        let product = catalog.product(at: index)
        return change?.applied(to: product) ?? product
    }

    /// The catalog's products at `indices` as they are now, read under one lock so that a list
    /// never mixes states from before and after a change.
    func products(at indices: [Int], in catalog: Catalog) -> [StubProduct] {
        let found = changes.withLock { changes in changes.isEmpty ? nil : indices.map { changes[$0] } }
        guard let found else { return indices.map(catalog.product(at:)) }
        return zip(indices, found).map { index, change in
            let product = catalog.product(at: index)
            return change?.applied(to: product) ?? product
        }
    }
}
