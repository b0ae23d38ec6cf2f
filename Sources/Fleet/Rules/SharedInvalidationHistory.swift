import ProductDetails
/// The fleet's recent invalidations as Redis keeps them (a bounded log in one key), read when a
/// replica (re)subscribes so that a message it missed costs nothing worse than a reload.
package struct SharedInvalidationHistory: Sendable, Equatable {
    /// One logged invalidation: a product, or everything (`id` nil).
    package struct Entry: Sendable, Equatable {
        package let sequence: UInt64
        package let id: String?

        package init(sequence: UInt64, id: String?) {
            self.sequence = sequence
            self.id = id
        }
    }

    /// Every invalidation after this sequence is in `entries` (older ones were trimmed, or the
    /// log began here).
    package let knownFrom: UInt64
    package let entries: [Entry]

    package init(knownFrom: UInt64, entries: [Entry]) {
        self.knownFrom = knownFrom
        self.entries = entries
    }
}
