/// Why a shared-cache call gave no answer. The caller goes on as a single node would.
package enum SharedStoreFailure: Error, Sendable, Equatable {
    /// No reply before the call's deadline.
    case timedOut
    /// Not connected, refused, or an answer that made no sense; `detail` is for logs.
    case unavailable(String)
    /// The caller's task was cancelled (its clients left): nothing is known about Redis.
    case cancelled
}
