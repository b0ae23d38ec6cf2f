import ProductDetails

extension OmissionReason {
    /// The `detail` of `Cache-Status` (and the log line's `cacheDetail`) for a page answered
    /// without waiting for a part.
    var cacheStatusDetail: String {
        switch self {
        case .grace: "grace-ended"
        case .breaker: "breaker-open"
        case .failure: "part-failed"
        case .shed: "part-shed"
        }
    }
}
