import HTTP1

/// What the server knows of a request it is about to answer, whoever gives the answer: the
/// observer the server calls for every answer (see ``observer(_:)``) reads it.
public struct AnsweredRequest<Attachment: AnyObject & Sendable>: Sendable {
    /// The request's head; nil when the HTTP layer answered before its head was complete.
    @usableFromInline package let head: HTTPRequestHead?
    /// The loop, the time the head was complete (or the refusal, without one), and what the
    /// responder filled in (route, request id, attachment).
    @usableFromInline package let context: AttachedContext<Attachment>
    @usableFromInline package let source: AnswerSource

    @inlinable init(head: HTTPRequestHead?, context: AttachedContext<Attachment>, source: AnswerSource) {
        self.head = head
        self.context = context
        self.source = source
    }

    /// An answered request as the server would give it, for callers without a socket (tests).
    package init(head: HTTPRequestHead?, attached context: AttachedContext<Attachment>, source: AnswerSource) {
        self.init(head: head, context: context, source: source)
    }

    /// The server's answer observer for `observe`, which sees each answered request's context
    /// typed: called on the connection's loop for every answer the server writes, once, before
    /// it is written, and for an answer to a client that has gone away, it is the one place that
    /// can add fields to every answer (a request id) and count and log them all.
    @inlinable public static func observer(
        _ observe: @escaping @Sendable (inout HTTPResponse, AnsweredRequest) -> Void
    ) -> AnswerObserver {
        { response, head, context, source in
            observe(&response, AnsweredRequest(head: head, context: AttachedContext(core: context), source: source))
        }
    }
}

/// Who gave an answer.
public enum AnswerSource: Sendable, Equatable {
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

/// The server's observer of every answer, untyped: made by ``AnsweredRequest/observer(_:)``.
public typealias AnswerObserver = @Sendable (inout HTTPResponse, HTTPRequestHead?, RequestContext, AnswerSource) -> Void
