/// Why a load was not let through to its upstreams (answered `503` with `Retry-After`, or a
/// stale page); also a metrics label.
package enum AdmissionRefusal: String, Sendable, Equatable, Hashable, CaseIterable {
    /// It waited as long as the queue allows (controlled delay) and room never came.
    case queueTimeout = "queue_timeout"
    /// The queue held as many loads as it may.
    case queueFull = "queue_full"
    /// Less time was left than the upstream takes to answer when nothing waits.
    case deadline
    /// A background refresh, which never waits: its callers already have a page.
    case background

    /// Why, in an operator's words, for log lines.
    package var cause: String {
        switch self {
        case .queueTimeout: "upstream limit full: waited the queue's bound"
        case .queueFull: "upstream limit full: queue full"
        case .deadline: "deadline too close for an upstream call"
        case .background: "upstream limit full: refresh skipped"
        }
    }
}
