/// How far an invalidation went.
package enum InvalidationReach: Sendable, Equatable {
    /// Single node: this replica forgot.
    case local
    /// The fleet was told; `receivers` replicas (this one included) received the message.
    case fleet(receivers: Int)
    /// This replica forgot, but the fleet could not be told.
    case localOnly(SharedStoreFailure)

}

/// Why a shared-cache call gave no answer. The caller goes on as a single node would.
package enum SharedStoreFailure: Error, Sendable, Equatable {
    /// No reply before the call's deadline.
    case timedOut
    /// Not connected, refused, or an answer that made no sense; `detail` is for logs.
    case unavailable(String)
    /// The caller's task was cancelled (its clients left): nothing is known about Redis.
    case cancelled
}
