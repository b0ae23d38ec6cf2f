import HTTP1

/// What the server knows of a request it is about to answer, whoever gives the answer: the
/// observer the server calls for every answer (see ``AnswerObserver``) reads it.
package struct AnsweredRequest: Sendable {
    /// Who gave the answer.
    package enum Source: Sendable, Equatable {
        /// The responder (a route, or the router's `404`/`405`).
        case responder
        /// The server's overload guard (`maxInFlightRequests`).
        case overload
        /// The HTTP layer refused the bytes: framing (`400`), `413`, `414`, `431`, `501`, `505`.
        case malformedRequest
        /// The request was not received within the read timeout (`408`).
        case readTimeout
        /// The shutdown grace period ended before the responder answered, or before the request
        /// had arrived whole (`503`).
        case shutdown
    }

    /// The request's head; nil when the HTTP layer answered before its head was complete.
    package let head: HTTPRequestHead?
    /// The loop, the time the head was complete (or the refusal, without one), and what the
    /// immediate responder filled in (route, request id).
    package let context: RequestContext
    package let source: Source

    package init(head: HTTPRequestHead?, context: RequestContext, source: Source) {
        self.head = head
        self.context = context
        self.source = source
    }
}

/// Called on the connection's loop for every answer the server writes, once, before it is
/// written, and for an answer to a client that has gone away: the one place that can add fields
/// to every answer (a request id) and count and log them all.
package typealias AnswerObserver = @Sendable (inout HTTPResponse, AnsweredRequest) -> Void
