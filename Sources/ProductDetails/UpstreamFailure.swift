/// Why one upstream call failed, in the terms the retry loop and the service decide on.
///
/// Adapters over HTTP map transport errors and status codes into these cases; the domain never
/// sees sockets. `status` carries `Retry-After` so that backoff can honour it.
package enum UpstreamFailure: Error, Sendable, Equatable, Hashable {
    /// The connection was refused, or the host could not be reached.
    case connectFailed
    /// The upstream's host name did not resolve.
    case hostNotFound
    case connectionReset
    case timedOut
    case status(Int, retryAfter: Duration?)
    case notFound
    case malformedBody(String)
    case cancelled
    /// Not sent, or dropped while it waited for a connection: the upstream's circuit breaker is
    /// open. Tells the breaker nothing, and is never retried (the breaker would refuse the retry).
    case circuitOpen
    /// Not sent: the upstream's concurrency limit was full (``LoadAdmission``). Overload, not a
    /// failure of the upstream: tells the breaker nothing, and is never retried.
    case shed

    /// Whether a retry may help: transport failures, attempt time-outs, 429 and the transient 5xx.
    ///
    /// `notFound`, bad bodies and other statuses are answers, not accidents: asking again would
    /// only multiply traffic. A cancelled call has nobody left to answer.
    package var isRetryable: Bool {
        switch self {
        case .connectFailed, .hostNotFound, .connectionReset, .timedOut:
            return true
        case .status(let code, _):
            return [429, 500, 502, 503, 504].contains(code)
        case .notFound, .malformedBody, .cancelled, .circuitOpen, .shed:
            return false
        }
    }

    /// One failure of each ``label``, so metrics can show every outcome (and, of the retryable
    /// ones, every retry reason) at zero before it first happens. A new case belongs here too.
    package static let oneOfEachLabel: [UpstreamFailure] = [
        .connectFailed, .hostNotFound, .connectionReset, .timedOut, .status(429, retryAfter: nil),
        .status(400, retryAfter: nil), .status(500, retryAfter: nil), .status(300, retryAfter: nil), .notFound,
        .malformedBody(""), .cancelled, .circuitOpen, .shed,
    ]

    /// A bounded label for metrics (status codes are grouped by class, except 429).
    package var label: String {
        switch self {
        case .connectFailed: return "connect_failed"
        case .hostNotFound: return "dns_failed"
        case .connectionReset: return "connection_reset"
        case .timedOut: return "timed_out"
        case .status(429, _): return "status_429"
        case .status(let code, _) where (400..<500).contains(code): return "status_4xx"
        case .status(let code, _) where (500..<600).contains(code): return "status_5xx"
        case .status: return "status_other"
        case .notFound: return "not_found"
        case .malformedBody: return "malformed_body"
        case .cancelled: return "cancelled"
        case .circuitOpen: return "circuit_open"
        case .shed: return "shed"
        }
    }

    /// Why, in an operator's words, for log lines.
    package var cause: String {
        switch self {
        case .connectFailed: "refused"
        case .hostNotFound: "dns"
        case .connectionReset: "reset"
        case .timedOut: "timed out"
        case .status(let code, _): "status \(code)"
        case .notFound: "not found"
        case .malformedBody: "malformed body"
        case .cancelled: "cancelled"
        case .circuitOpen: "circuit breaker open"
        case .shed: "concurrency limit full"
        }
    }

    /// Whether the upstream's host did not answer at all (as opposed to answering badly).
    package var isUnreachable: Bool {
        switch self {
        case .connectFailed, .hostNotFound, .connectionReset, .timedOut: true
        case .status, .notFound, .malformedBody, .cancelled, .circuitOpen, .shed: false
        }
    }
}
