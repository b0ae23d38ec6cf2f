import ProductDetails
/// What the shared cache answered to an invalidation: the sequence it was logged under, and how
/// many replicas received its message.
package struct SharedInvalidationReceipt: Sendable, Equatable {
    package let sequence: UInt64
    package let receivers: Int

    package init(sequence: UInt64, receivers: Int) {
        self.sequence = sequence
        self.receivers = receivers
    }
}
