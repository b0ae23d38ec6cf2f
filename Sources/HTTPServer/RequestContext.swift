import EventLoop

/// What the server knows about a request beyond its bytes.
package struct RequestContext: Sendable {
    /// The loop the connection (and the handler task) runs on; pass it as executor preference to
    /// work that should stay on this thread.
    package let loop: EventLoop
    /// When the request's head was complete.
    package let receivedAt: ContinuousClock.Instant
    /// The route pattern that matched (`/products/{id}`, ``Router/unmatched`` when none did), for
    /// metrics and logs; never the raw path. Empty when the request was refused before routing.
    package var route: String
    /// The id logs and upstream calls know this request by; set by the application's front
    /// handler (empty until then).
    package var requestID: String
    /// What the responder attaches to the request for the ``AnswerObserver`` (the application's
    /// record for its log line); the server only carries it to the observer.
    package var annotation: (any AnyObject & Sendable)?

    package init(loop: EventLoop, receivedAt: ContinuousClock.Instant, route: String = "", requestID: String = "") {
        self.loop = loop
        self.receivedAt = receivedAt
        self.route = route
        self.requestID = requestID
    }
}

/// Work that answers a request after waiting (a route's handler, or what a responder defers).
package typealias RouteHandler = @Sendable (HTTPRequest, RequestContext) async -> HTTPResponse

/// The server's one responder, asked for every request on its connection's loop thread: it
/// answers at once or says what to run in a task (``ResponderAnswer``). It fills in `request`
/// (its path parameters) and `context` (route, request id, annotation) in place, for the task
/// and the observer: in place, because a copy of either retains each of its parts.
package typealias Responder = @Sendable (inout HTTPRequest, inout RequestContext) -> ResponderAnswer
