import ProductDetails
/// How one read of the shared cache ended; a metrics label.
package enum SharedReadResult: String, Sendable, CaseIterable {
    case hit, miss, stale, error, timeout
}

/// How this replica took part in a product's fleet-wide load; a metrics label.
package enum LeaseResult: String, Sendable, CaseIterable {
    /// It took the lease at once and loaded.
    case won
    /// Another replica held it; this one waited for its page.
    case waited
    /// It waited, then took the lease over (the holder died or gave up) and loaded.
    case takenOver = "taken_over"
}

extension SharedStoreFailure {
    /// The metrics label of a failed read; `nil` when the read says nothing about Redis.
    var readResult: SharedReadResult? {
        switch self {
        case .timedOut: .timeout
        case .unavailable: .error
        case .cancelled: nil
        }
    }
}
