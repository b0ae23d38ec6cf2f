import EventLoop

/// What the server knows about a request beyond its bytes. Routes, deferred work and the answer
/// observer see it inside an ``AttachedContext``, beside what the application attached to it.
///
/// `public` (its members are `package`): the typed entry points that wrap an application's
/// closures for the server are `@inlinable public`, so that they are specialized for the
/// application's attachment where they are used, and their signatures name this type.
public struct RequestContext: Sendable {
    /// The loop the connection (and the handler task) runs on; pass it as executor preference to
    /// work that should stay on this thread.
    package let loop: EventLoop
    /// When the request's head was complete.
    package let receivedAt: ContinuousClock.Instant
    /// The route pattern that matched (`/products/{id}`, ``unmatchedRoute`` when none did), for
    /// metrics and logs; never the raw path. Empty when the request was refused before routing.
    package var route: String
    /// The id logs and upstream calls know this request by; set by the application's front
    /// handler (empty until then).
    package var requestID: String
    /// What the application attached to the request, untyped here: it is read and written only
    /// through ``AttachedContext/attachment``, whose `Attachment` is the one type every typed
    /// entry point of a server shares (see ``AttachedContext``).
    @usableFromInline var attachment: (any AnyObject & Sendable)?

    package init(loop: EventLoop, receivedAt: ContinuousClock.Instant, route: String = "", requestID: String = "") {
        self.loop = loop
        self.receivedAt = receivedAt
        self.route = route
        self.requestID = requestID
    }

    /// The route label of requests no route matched.
    package static let unmatchedRoute = "unmatched"
}
