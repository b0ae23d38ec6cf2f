/// The answer a ``ResponderAnswer/deferred(_:)`` request is owed (``AnswerPromise``), with the
/// request's context typed as its route's is.
public struct AttachedPromise<Attachment: AnyObject & Sendable>: Sendable {
    @usableFromInline let promise: AnswerPromise

    @inlinable init(_ promise: AnswerPromise) {
        self.promise = promise
    }

    /// The request as the responder left it.
    @inlinable public var request: HTTPRequest { promise.request }

    /// The request's context as the responder left it; what is set here is what a task started
    /// by ``later(_:)`` and the answer's observer see.
    @inlinable public var context: AttachedContext<Attachment> {
        get { AttachedContext(core: promise.context) }
        nonmutating set { promise.context = newValue.core }
    }

    /// What the application attached to the request: `context.attachment`, read without making
    /// the view (which would copy the context).
    @inlinable public var attachment: Attachment? {
        promise.context.attachment as? Attachment
    }

    /// Whether the promise was kept (answered, or handed to a task) or abandoned.
    @inlinable public var isKept: Bool { promise.isKept }

    /// Gives `cancel`, run on the loop if the request is abandoned before the promise is kept.
    @inlinable public func whenAbandoned(_ cancel: @escaping () -> Void) {
        promise.whenAbandoned(cancel)
    }

    /// Answers the request with `response`, on the connection's loop.
    @inlinable public func answer(_ response: HTTPResponse) {
        promise.answer(response)
    }

    /// Runs `handler` in a task preferring the connection's loop; its response answers the
    /// request.
    @inlinable public func later(_ handler: @escaping @Sendable (HTTPRequest, AttachedContext<Attachment>) async -> HTTPResponse) {
        promise.later { request, context in await handler(request, AttachedContext(core: context)) }
    }
}
