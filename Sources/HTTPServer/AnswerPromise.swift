/// The answer a ``ResponderAnswer/promised(_:)`` request is owed, kept once: by ``answer(_:)``
/// from a callback on the connection's loop, or by ``later(_:)``, which hands the rest to a task
/// as ``ResponderAnswer/later(_:)`` does. A second keeping is ignored, so a callback that fires
/// late cannot answer a request twice, nor the next request on the connection.
///
/// `@unchecked Sendable`: `sink`, `cancel` and `context` are touched by one thread at a time.
/// A promise of a connection lives on the connection's loop thread (the server runs `start`
/// there, and the callbacks that keep it run there); one made by
/// ``answer(of:request:context:)`` (no socket) is touched by the caller's thread while `start`
/// runs and then by the one callback that keeps it.
/// `public` (its members internal): ``AttachedPromise``, its typed view, holds one.
public final class AnswerPromise: @unchecked Sendable {
    /// The request and its context as the responder left them: what a task started by
    /// ``later(_:)`` is given. The context may be filled in before (a request id, an attachment
    /// only the task needs); the answer's observer then sees it as the task left it.
    @usableFromInline let request: HTTPRequest
    @usableFromInline var context: RequestContext
    private var sink: Sink?
    /// What stops the work that would keep the promise, once no one waits for it.
    private var cancel: (() -> Void)?

    private enum Sink {
        case connection(HTTPConnection)
        case continuation(CheckedContinuation<(HTTPResponse, RequestContext), Never>)
    }

    init(connection: HTTPConnection, request: HTTPRequest, context: RequestContext) {
        self.request = request
        self.context = context
        sink = .connection(connection)
    }

    private init(request: HTTPRequest, context: RequestContext, continuation: CheckedContinuation<(HTTPResponse, RequestContext), Never>) {
        self.request = request
        self.context = context
        sink = .continuation(continuation)
    }

    /// Whether the promise was kept (answered, or handed to a task) or abandoned: keeping it
    /// now does nothing.
    @usableFromInline var isKept: Bool { sink == nil }

    /// Gives `cancel`, to be run (on the loop) if the request is abandoned before the promise
    /// is kept: the client left, or a shutdown answered for it. Dropped once the promise is kept.
    @usableFromInline func whenAbandoned(_ cancel: @escaping () -> Void) {
        guard sink != nil else { return }
        self.cancel = cancel
    }

    /// No one waits any more: later keeping is ignored, and the work is stopped.
    func abandon() {
        guard sink.take() != nil else { return }
        cancel.take()?()
    }

    /// Answers the request with `response`; on a connection, call it on the connection's loop.
    @usableFromInline func answer(_ response: HTTPResponse) {
        cancel = nil
        switch sink.take() {
        case .connection(let connection)?: connection.handlerAnswered(response)
        case .continuation(let continuation)?: continuation.resume(returning: (response, context))
        case nil: break
        }
    }

    /// Runs `handler` in a task preferring the connection's loop, as a ``ResponderAnswer/later(_:)``
    /// answer would have; its response answers the request.
    @usableFromInline func later(_ handler: @escaping RouteHandler) {
        cancel = nil
        switch sink.take() {
        case .connection(let connection)?:
            connection.handOn(handler, request: request, context: context)
        case .continuation(let continuation)?:
            let (request, context) = (request, context)
            Task { continuation.resume(returning: (await handler(request, context), context)) }
        case nil:
            break
        }
    }

    /// The answer a deferred `start` gives and the context as the promise left it, for callers
    /// without a socket (in-memory route tests).
    static func answer(
        of start: @Sendable (AnswerPromise) -> Void, request: HTTPRequest, context: RequestContext
    ) async -> (HTTPResponse, RequestContext) {
        await withCheckedContinuation { continuation in
            start(AnswerPromise(request: request, context: context, continuation: continuation))
        }
    }
}
