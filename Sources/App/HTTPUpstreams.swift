import HTTP1
import HTTPClient
import ProductDetails

/// The three upstream ports over HTTP: one attempt per call (the domain's retrier decides about
/// more), the request id passed on, statuses and connection failures mapped to `UpstreamFailure`.
/// Each upstream has a client pool of its own (its name), so hung calls to one never take the
/// connections another needs when they share an origin.
struct HTTPUpstreams: ProductSource, ReviewSource, SuggestionSource {
    let client: HTTPClient
    let products: Origin
    let reviews: Origin
    let suggestions: Origin

    func product(id: String, call: UpstreamCall) async throws(UpstreamFailure) -> Product {
        try UpstreamJSON.product(from: try await fetch(.products, products, path: "/products/\(id)", call))
    }

    func reviews(productID: String, call: UpstreamCall) async throws(UpstreamFailure) -> [Review] {
        try UpstreamJSON.reviews(from: try await fetch(.reviews, reviews, path: "/products/\(productID)/reviews", call))
    }

    func suggestions(productID: String, call: UpstreamCall) async throws(UpstreamFailure) -> [Product] {
        try UpstreamJSON.products(from: try await fetch(.suggestions, suggestions, path: "/products/\(productID)/suggested", call))
    }

    private func fetch(_ upstream: Upstream, _ origin: Origin, path: String, _ call: UpstreamCall) async throws(UpstreamFailure) -> [UInt8] {
        // In wire form: every attempt of every load writes them.
        var fields = FieldBlock(reservingCapacity: 160)
        fields.add("Accept", "application/json")
        if !call.requestID.isEmpty { fields.add("X-Request-ID", call.requestID) }
        if let trace = call.trace {
            // Each attempt is a span of its own in the trace of the request that started the load.
            trace.child().withTraceparent { fields.add("traceparent", bytes: $0) }
            if let state = trace.traceState { fields.add("tracestate", state) }
        }
        let response: HTTPClientResponse
        do {
            response = try await client.get(origin, pool: upstream.rawValue, path: path, fields: fields, timeout: call.timeout)
        } catch {
            throw Self.failure(for: error)
        }
        switch response.status.code {
        case 200:
            return response.body
        case 404:
            throw .notFound
        case let code:
            throw .status(code, retryAfter: response.headers["Retry-After"].flatMap(Self.retryAfter))
        }
    }

    static func failure(for error: HTTPClientError) -> UpstreamFailure {
        switch error.code {
        // libuv names resolver errors EAI_*: a host name that does not resolve.
        case .connectFailed where error.detail.hasPrefix("EAI_"): .hostNotFound
        case .connectFailed, .unsupportedURL, .shutdown: .connectFailed
        // Like an attempt that timed out: the upstream did not answer in time.
        case .connectTimeout: .timedOut
        case .timedOut: .timedOut
        case .connectionReset: .connectionReset
        case .malformedResponse: .malformedBody(error.detail)
        case .cancelled: .cancelled
        // Failed while queued because the upstream's breaker opened: never sent.
        case .dropped: .circuitOpen
        }
    }

    /// `Retry-After` in delta-seconds (the HTTP-date form is not used by our upstreams and is
    /// ignored rather than guessed at).
    static func retryAfter(_ value: String) -> Duration? {
        guard let seconds = Int(value), seconds >= 0 else { return nil }
        return .seconds(seconds)
    }
}
