/// What a ``Responder`` gives for a request, asked on the connection's loop thread.
package enum ResponderAnswer: Sendable {
    /// Answered at once: written before the loop reads on, with no task made (a cached page, a
    /// health check, a `404`).
    case now(HTTPResponse)
    /// The answer needs waiting: the server runs `handler` with the request and context as the
    /// responder left them, in a task preferring the connection's loop (unless the in-flight
    /// limit is reached: then `503` at once).
    case later(RouteHandler)
    /// The answer needs waiting, but perhaps not for a task: the server runs `start` at once on
    /// the loop thread with the request's ``AnswerPromise``, which is kept by a callback (a reply
    /// read on this loop) and answers on the loop, or hands the rest to a task as `.later` does.
    /// It holds a request slot as `.later` does (unless the in-flight limit is reached: then
    /// `503` at once and `start` is not run).
    case deferred(@Sendable (AnswerPromise) -> Void)
}

extension ResponderAnswer {
    /// The answer, waiting for it when it was deferred: what the server would write, for callers
    /// without a socket (in-memory route tests). `context` becomes what the server's observer
    /// would see (a deferred request's promise may fill it in).
    package func response(to request: HTTPRequest, context: inout RequestContext) async -> HTTPResponse {
        switch self {
        case .now(let response):
            return response
        case .later(let handler):
            return await handler(request, context)
        case .deferred(let start):
            let (response, kept) = await AnswerPromise.answer(of: start, request: request, context: context)
            context = kept
            return response
        }
    }
}
