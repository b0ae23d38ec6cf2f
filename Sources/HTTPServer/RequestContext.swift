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

    public init(loop: EventLoop, receivedAt: ContinuousClock.Instant, route: String = "") {
        self.loop = loop
        self.receivedAt = receivedAt
        self.route = route
    }
}

/// A route's handler.
public typealias RouteHandler = @Sendable (HTTPRequest, RequestContext) async -> HTTPResponse
