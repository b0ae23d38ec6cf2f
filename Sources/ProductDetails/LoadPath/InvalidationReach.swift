/// How far an invalidation went.
package enum InvalidationReach: Sendable, Equatable {
    /// Single node: this replica forgot.
    case local
    /// The fleet was told; `receivers` replicas (this one included) received the message.
    case fleet(receivers: Int)
    /// This replica forgot, but the fleet could not be told.
    case localOnly(SharedStoreFailure)

}
