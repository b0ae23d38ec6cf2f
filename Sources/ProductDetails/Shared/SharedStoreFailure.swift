/// Why a shared-cache call gave no answer. The caller goes on as a single node would.
public enum SharedStoreFailure: Error, Sendable, Equatable {
    /// No reply before the call's deadline.
    case timedOut
    /// Not connected, refused, or an answer that made no sense; `detail` is for logs.
    case unavailable(String)

    /// The metrics label of a failed read.
    var readResult: SharedReadResult {
        switch self {
        case .timedOut: .timeout
        case .unavailable: .error
        }
    }
}
