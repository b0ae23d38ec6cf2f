/// The three upstream services a detail page is merged from; also a metrics label.
package enum Upstream: String, Sendable, Equatable, Hashable, CaseIterable {
    case products
    case reviews
    case suggestions
}

/// What one upstream attempt must respect: its own time-out and the request id to pass upstream.
///
/// The adapter enforces `timeout` (answering ``UpstreamFailure/timedOut``); the retry loop sets it
/// to the smaller of the policy's attempt time-out and what is left of the request deadline.
package struct UpstreamCall: Sendable, Equatable {
    package var timeout: Duration
    package var requestID: String
    /// The trace the call belongs to (the request's that started the load); each attempt is sent
    /// as a span of its own (``TraceContext/child(random:)``).
    package var trace: TraceContext?

    package init(timeout: Duration, requestID: String, trace: TraceContext? = nil) {
        self.timeout = timeout
        self.requestID = requestID
        self.trace = trace
    }
}

/// Port to the products upstream (`GET /products/{id}`); ``UpstreamFailure/notFound`` for a 404.
package protocol ProductSource: Sendable {
    func product(id: String, call: UpstreamCall) async throws(UpstreamFailure) -> Product
}

/// Port to the reviews upstream (`GET /products/{id}/reviews`).
package protocol ReviewSource: Sendable {
    func reviews(productID: String, call: UpstreamCall) async throws(UpstreamFailure) -> [Review]
}

/// Port to the suggestions upstream (`GET /products/{id}/suggested`).
package protocol SuggestionSource: Sendable {
    func suggestions(productID: String, call: UpstreamCall) async throws(UpstreamFailure) -> [Product]
}
