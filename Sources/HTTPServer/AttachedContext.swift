import EventLoop

/// A request's context as a server's routes, their deferred work and its answer observer see it:
/// what the server knows of the request (``RequestContext``, read through this view:
/// `context.route`, `context.loop`) and the one object the application attached to it, typed
/// (`attachment`: the service's record of what it did for the request, for its log line).
///
/// The server itself carries the attachment untyped, so that its connections are not generic.
/// The typed entry points (``Router``, ``responder(_:)``, ``AnsweredRequest/observer(_:)``,
/// ``ResponderAnswer/later(_:)``, ``AttachedPromise``) are `@inlinable public`: specialized where
/// the application uses them, they look up no type metadata per request (Swift 6.3 inlines an
/// `@inlinable` member into another module only from a `public` or `@usableFromInline` type:
/// scripts/check-inlinable.py), and they make their views in place (``withAttached(_:_:)``), not
/// by copying the context. The attachment is read back with a checked cast: a route typed for
/// another attachment reads nil, never memory of the wrong type.
@dynamicMemberLookup
public struct AttachedContext<Attachment: AnyObject & Sendable>: Sendable {
    /// What the server knows of the request.
    @usableFromInline package var core: RequestContext

    @inlinable init(core: RequestContext) {
        self.core = core
    }

    /// A request's context before the responder saw it, for callers without a socket (tests).
    package init(loop: EventLoop, receivedAt: ContinuousClock.Instant) {
        core = RequestContext(loop: loop, receivedAt: receivedAt)
    }

    /// What the application attached to the request (nil until it does).
    @inlinable public var attachment: Attachment? {
        get { core.attachment as? Attachment }
        set { core.attachment = newValue }
    }

    @inlinable public subscript<Value>(dynamicMember keyPath: KeyPath<RequestContext, Value>) -> Value {
        core[keyPath: keyPath]
    }

    @inlinable public subscript<Value>(dynamicMember keyPath: WritableKeyPath<RequestContext, Value>) -> Value {
        get { core[keyPath: keyPath] }
        set { core[keyPath: keyPath] = newValue }
    }

    /// The server's responder for `respond`, which sees each request's context typed: asked on
    /// the connection's loop thread, it fills in the request (path parameters) and the context
    /// (route, request id, attachment) in place, for the work it defers and for the observer.
    @inlinable public static func responder(
        _ respond: @escaping @Sendable (inout HTTPRequest, inout AttachedContext) -> ResponderAnswer
    ) -> Responder {
        { request, context in withAttached(&context) { respond(&request, &$0) } }
    }

    /// Runs `body` with `context` seen as this type, in place: moved into the view and back, so
    /// that no part of it is retained for the view (a copy would retain each of its parts).
    @inlinable static func withAttached<Result>(_ context: inout RequestContext, _ body: (inout AttachedContext) -> Result) -> Result {
        withUnsafeMutablePointer(to: &context) { pointer in
            var attached = AttachedContext(core: pointer.move())
            let result = body(&attached)
            pointer.initialize(to: (consume attached).core)
            return result
        }
    }

    /// `read` over each request's context typed, for a hook the server asks with the untyped one
    /// (the catalog stub's fault injection).
    @inlinable public static func reading<Value>(
        _ read: @escaping @Sendable (AttachedContext) -> Value
    ) -> @Sendable (RequestContext) -> Value {
        { read(AttachedContext(core: $0)) }
    }
}
