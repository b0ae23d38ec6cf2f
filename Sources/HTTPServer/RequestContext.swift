import EventLoop

/// What the server knows about a request beyond its bytes.
public struct RequestContext: Sendable {
    /// The loop the connection (and the handler task) runs on; pass it as executor preference to
    /// work that should stay on this thread.
    public let loop: EventLoop
    /// When the request's head was complete.
    public let receivedAt: ContinuousClock.Instant
    /// The route pattern that matched (`/products/{id}`), for metrics and logs; never the raw path.
    public var route: String
    /// The id logs and upstream calls know this request by; set by the application's front
    /// handler (empty until then).
    public var requestID: String

    public init(loop: EventLoop, receivedAt: ContinuousClock.Instant, route: String = "", requestID: String = "") {
        self.loop = loop
        self.receivedAt = receivedAt
        self.route = route
        self.requestID = requestID
    }
}

/// A route's handler.
public typealias RouteHandler = @Sendable (HTTPRequest, RequestContext) async -> HTTPResponse

/// Answers a request synchronously on its loop thread when that needs no waiting, else returns
/// nil. It may fill in `request` (its path parameters) and `context` (the route, the request id)
/// in place, for the responder that then takes over: in place, because a copy of either retains
/// each of its parts.
public typealias ImmediateResponder = @Sendable (inout HTTPRequest, inout RequestContext) -> HTTPResponse?
