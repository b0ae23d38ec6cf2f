import HTTP1

/// A server's routes, typed for the application's attachment: every route sees the request's
/// context as an ``AttachedContext`` of the same `Attachment` as the front handler that asks
/// the router. HEAD is served by the GET handler when no HEAD route is registered.
///
/// Its methods only wrap the routes' closures for the untyped ``RouteSet`` that matches paths;
/// `@inlinable public`, they are specialized where the application registers its routes.
public struct Router<Attachment: AnyObject & Sendable>: Sendable {
    @usableFromInline var routes = RouteSet()

    @inlinable public init() {}

    /// Registers `handler` for `method` on `pattern` (e.g. `/products/{id}`): its answer needs
    /// waiting, so it runs in a task.
    @inlinable public mutating func add(
        _ method: HTTPMethod, _ pattern: String, _ handler: @escaping @Sendable (HTTPRequest, AttachedContext<Attachment>) async -> HTTPResponse
    ) {
        // Made once here: the route answers every request with the same deferred handler.
        let later = ResponderAnswer.later(handler)
        routes.add(method, pattern, responder: { _, _ in later })
    }

    /// Registers a handler that never waits: it answers on the loop thread, with no task.
    @inlinable public mutating func addImmediate(
        _ method: HTTPMethod, _ pattern: String, _ handler: @escaping @Sendable (HTTPRequest, AttachedContext<Attachment>) -> HTTPResponse
    ) {
        routes.add(method, pattern, responder: { request, context in AttachedContext.withAttached(&context) { .now(handler(request, $0)) } })
    }

    /// Registers `responder` for `method` on `pattern`: asked on the loop thread, it answers at
    /// once when it can (a cached page) or defers to work that waits.
    @inlinable public mutating func add(
        _ method: HTTPMethod, _ pattern: String,
        responder: @escaping @Sendable (HTTPRequest, AttachedContext<Attachment>) -> ResponderAnswer
    ) {
        routes.add(method, pattern, responder: { request, context in AttachedContext.withAttached(&context) { responder(request, $0) } })
    }

    package func match(method: HTTPMethod, path: String) -> RouteSet.Match {
        routes.match(method: method, path: path)
    }

    /// Asks the route for `request`: binds its path parameters and the context's route in place
    /// (copied by nobody); a `404` or `405` problem (route ``RequestContext/unmatchedRoute``) at
    /// once.
    @inlinable public func respond(to request: inout HTTPRequest, context: inout AttachedContext<Attachment>) -> ResponderAnswer {
        routes.respond(to: &request, context: &context.core)
    }
}
