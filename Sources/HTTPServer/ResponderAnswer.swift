/// What a ``Responder`` gives for a request, asked on the connection's loop thread. `public`:
/// the typed entry points (``AttachedContext``) return it.
public enum ResponderAnswer: Sendable {
    /// Answered at once: written before the loop reads on, with no task made (a cached page, a
    /// health check, a `404`).
    case now(HTTPResponse)
    /// The answer needs waiting: the server runs `handler` with the request and context as the
    /// responder left them, in a task preferring the connection's loop (unless the in-flight
    /// limit is reached: then `503` at once). Made by ``later(_:)``.
    case waiting(RouteHandler)
    /// The answer needs waiting, but perhaps not for a task: the server runs `start` at once on
    /// the loop thread with the request's ``AnswerPromise``, which is kept by a callback (a reply
    /// read on this loop) and answers on the loop, or hands the rest to a task as `.waiting` does.
    /// It holds a request slot as `.waiting` does (unless the in-flight limit is reached: then
    /// `503` at once and `start` is not run). Made by ``deferred(_:)``.
    case promised(@Sendable (AnswerPromise) -> Void)

    /// The answer needs waiting: `handler` runs in a task with the request and its context as
    /// the responder left them.
    @inlinable public static func later<Attachment>(
        _ handler: @escaping @Sendable (HTTPRequest, AttachedContext<Attachment>) async -> HTTPResponse
    ) -> ResponderAnswer {
        .waiting { request, context in await handler(request, AttachedContext(core: context)) }
    }

    /// The answer needs waiting, perhaps not for a task: `start` runs at once on the loop thread
    /// with the request's promise.
    @inlinable public static func deferred<Attachment>(
        _ start: @escaping @Sendable (AttachedPromise<Attachment>) -> Void
    ) -> ResponderAnswer {
        .promised { promise in start(AttachedPromise(promise)) }
    }
}

extension ResponderAnswer {
    /// The answer, waiting for it when it was deferred: what the server would write, for callers
    /// without a socket (in-memory route tests). `context` becomes what the server's observer
    /// would see (a deferred request's promise may fill it in).
    package func response(to request: HTTPRequest, context: inout RequestContext) async -> HTTPResponse {
        switch self {
        case .now(let response):
            return response
        case .waiting(let handler):
            return await handler(request, context)
        case .promised(let start):
            let (response, kept) = await AnswerPromise.answer(of: start, request: request, context: context)
            context = kept
            return response
        }
    }
}

/// Work that answers a request after waiting, as the server runs it: a typed handler made
/// untyped by ``ResponderAnswer/later(_:)`` or ``AttachedPromise/later(_:)``.
public typealias RouteHandler = @Sendable (HTTPRequest, RequestContext) async -> HTTPResponse

/// The server's one responder, asked for every request on its connection's loop thread: it
/// answers at once or says what to run in a task (``ResponderAnswer``). It fills in `request`
/// (its path parameters) and `context` (route, request id, attachment) in place, for the task
/// and the observer: in place, because a copy of either retains each of its parts. Made by
/// ``AttachedContext/responder(_:)``.
public typealias Responder = @Sendable (inout HTTPRequest, inout RequestContext) -> ResponderAnswer
