import JSON
import Timekeeping

/// A failure the HTTP layer turns into an `application/problem+json` answer (RFC 9457).
///
/// A struct with static factories rather than an enum, so that adding a kind never breaks a
/// caller's `switch`; every value knows its status, title and body.
package struct ProductDetailsError: Error, Sendable, Equatable {
    package let status: Int
    package let title: String
    package let detail: String
    /// For 503: how long the client should wait before asking again.
    package let retryAfter: Duration?
    /// For an upstream's failure: which upstream, and why in an operator's words (for the log
    /// line of the answer; never in the body).
    package let upstream: Upstream?
    package let cause: String?

    package init(
        status: Int, title: String, detail: String, retryAfter: Duration? = nil, upstream: Upstream? = nil, cause: String? = nil
    ) {
        self.status = status
        self.title = title
        self.detail = detail
        self.retryAfter = retryAfter
        self.upstream = upstream
        self.cause = cause
    }

    /// The same answer, naming the upstream and cause behind it.
    func blaming(_ upstream: Upstream, _ cause: String) -> ProductDetailsError {
        ProductDetailsError(status: status, title: title, detail: detail, retryAfter: retryAfter, upstream: upstream, cause: cause)
    }

    /// 400: the id is not `[A-Za-z0-9_-]{1,64}`.
    package static let invalidID = ProductDetailsError(
        status: 400, title: "Bad Request", detail: "A product id is 1 to 64 characters of A-Z, a-z, 0-9, '_' or '-'."
    )

    /// 400 for one id of a batch, naming it.
    package static func invalidID(named id: String) -> ProductDetailsError {
        ProductDetailsError(status: 400, title: "Bad Request", detail: "\"\(id)\" is not a product id: \(invalidID.detail)")
    }

    /// 400: a batch asked for more ids than allowed.
    package static func batchTooLarge(count: Int, limit: Int) -> ProductDetailsError {
        ProductDetailsError(status: 400, title: "Bad Request", detail: "A batch may ask for at most \(limit) ids; this one asked for \(count).")
    }

    /// 404: the products upstream does not know the product.
    package static func notFound(id: String) -> ProductDetailsError {
        ProductDetailsError(status: 404, title: "Not Found", detail: "No product has the id \(id).")
    }

    /// 502: an upstream answered badly (bad status, malformed body, refused connection) after retries.
    package static func badGateway(_ detail: String) -> ProductDetailsError {
        ProductDetailsError(status: 502, title: "Bad Gateway", detail: detail)
    }

    /// 504: an upstream did not answer in time.
    package static func gatewayTimeout(_ detail: String) -> ProductDetailsError {
        ProductDetailsError(status: 504, title: "Gateway Timeout", detail: detail)
    }

    /// 504: the request's deadline passed while it waited for another replica's load of the
    /// product (fleet mode); going upstream itself then would have doubled its time.
    package static let sharedLoadTimedOut = ProductDetailsError(
        status: 504, title: "Gateway Timeout", detail: "The product's load did not finish in time.",
        cause: "timed out waiting for another replica's load"
    )

    /// 503: too many loads running; shed this one quickly instead of collapsing.
    package static func overloaded(retryAfter: Duration = .seconds(1)) -> ProductDetailsError {
        ProductDetailsError(
            status: 503, title: "Service Unavailable", detail: "Too many product loads are running; try again shortly.",
            retryAfter: retryAfter, cause: "MAX_INFLIGHT_LOADS reached"
        )
    }

    /// 503: the upstreams have no room for this load now (``LoadAdmission``): refused at once, or
    /// after a short wait, rather than queued at an upstream that is already at its limit.
    package static func shed(_ reason: AdmissionRefusal, retryAfter: Duration = .seconds(1)) -> ProductDetailsError {
        ProductDetailsError(
            status: 503, title: "Service Unavailable", detail: "The upstreams are at capacity; try again shortly.",
            retryAfter: retryAfter, cause: reason.cause
        )
    }

    /// Whether this is ``shed(_:retryAfter:)``: the load never called its upstreams.
    package var isShed: Bool {
        status == 503 && upstream == nil && AdmissionRefusal.allCases.contains { $0.cause == cause }
    }

    /// 503: the upstream's circuit breaker is open, so the required call was not made; a client
    /// may ask again once it could close (`retryAfter`, the breaker's remaining open time).
    package static func upstreamUnavailable(_ upstream: Upstream, retryAfter: Duration) -> ProductDetailsError {
        ProductDetailsError(
            status: 503, title: "Service Unavailable",
            detail: "The \(upstream.rawValue) upstream is failing and is not being asked for now; try again later.",
            retryAfter: retryAfter, upstream: upstream, cause: UpstreamFailure.circuitOpen.cause
        )
    }

    /// Whether this is ``upstreamUnavailable(_:retryAfter:)``: the call was never made.
    package var isBreakerRefusal: Bool {
        status == 503 && upstream != nil && cause == UpstreamFailure.circuitOpen.cause
    }

    /// `Retry-After` in whole seconds: ``retryAfter`` rounded up, at least 1 (a client told 0
    /// would ask again at once, into the same refusal).
    package var retryAfterSeconds: Int? {
        guard let retryAfter else { return nil }
        return Int(max(1, retryAfter.roundedUpSeconds))
    }

    /// The request's task was cancelled (its client went away). Typed throws cannot carry
    /// `CancellationError`, so cancellation travels as this value: 499 (nginx's "client closed
    /// request"). It is never a client-visible error: check ``isCancellation`` and write nothing.
    package static let cancelled = ProductDetailsError(status: 499, title: "Client Closed Request", detail: "The request was cancelled.")

    package var isCancellation: Bool { self == .cancelled }

    /// Maps the failure of the required products call.
    static func upstream(_ failure: UpstreamFailure, from upstream: Upstream) -> ProductDetailsError {
        failure == .cancelled ? .cancelled : answer(for: failure, from: upstream).blaming(upstream, failure.cause)
    }

    private static func answer(for failure: UpstreamFailure, from upstream: Upstream) -> ProductDetailsError {
        switch failure {
        case .timedOut:
            return .gatewayTimeout("The \(upstream.rawValue) upstream did not answer in time.")
        case .connectFailed:
            return .badGateway("The \(upstream.rawValue) upstream could not be reached.")
        case .hostNotFound:
            return .badGateway("The \(upstream.rawValue) upstream's host name did not resolve.")
        case .connectionReset:
            return .badGateway("The \(upstream.rawValue) upstream closed the connection.")
        case .status(let code, _):
            return .badGateway("The \(upstream.rawValue) upstream answered with status \(code).")
        case .malformedBody:
            return .badGateway("The \(upstream.rawValue) upstream sent a malformed body.")
        case .notFound:
            return .badGateway("The \(upstream.rawValue) upstream answered not found.")
        case .cancelled:
            return .cancelled
        case .circuitOpen:
            return .upstreamUnavailable(upstream, retryAfter: .seconds(1))
        case .shed:
            return .shed(.queueFull)
        }
    }

    /// The `application/problem+json` body: `{"type","title","status","detail"}`.
    package var problemJSON: [UInt8] {
        var writer = JSONBytesWriter(reservingCapacity: 128 + detail.utf8.count)
        writer.raw("{")
        writer.key("type")
        writer.raw("\"about:blank\",")
        writer.key("title")
        writer.string(title)
        writer.raw(",")
        writer.key("status")
        writer.int(status)
        writer.raw(",")
        writer.key("detail")
        writer.string(detail)
        writer.raw("}")
        return writer.bytes
    }
}
