import EventLoop
import HTTP1
import HTTPServer
import Locking
import Synchronization
import Timekeeping

/// A one-way latch: tasks `wait()` until someone calls `open()`. Used to hold a handler at a known
/// point instead of sleeping.
package final class Gate: Sendable {
    private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    package init() {}

    package func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    package func wait() async {
        await withCheckedContinuation { continuation in
            let passNow = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if passNow { continuation.resume() }
        }
    }
}

/// Runs `body` against a live server on 127.0.0.1 and an ephemeral port, then shuts it down.
package func withServer(
    configure: (inout ServerConfiguration) -> Void = { _ in },
    loops: Int = 2,
    time: (any TimeSource)? = nil,
    routes: (inout TestRouter) -> Void,
    answered: (@Sendable (inout HTTPResponse, AnsweredRequest<NoAttachment>) -> Void)? = nil,
    _ body: (HTTPServer, Int) async throws -> Void
) async throws {
    var configuration = ServerConfiguration()
    configuration.host = "127.0.0.1"
    configuration.port = 0
    configure(&configuration)
    var router = TestRouter()
    routes(&router)
    let frozen = router
    let group = try EventLoopGroup(loopCount: loops)
    // Routes registered with an immediate handler answer on the loop thread, as in the app.
    let server = HTTPServer(
        group: group, configuration: configuration, time: time,
        answered: answered.map(AnsweredRequest.observer),
        responder: AttachedContext.responder { request, context in frozen.respond(to: &request, context: &context) })
    let port = try await server.start()
    do {
        try await body(server, port)
    } catch {
        await server.shutdown(grace: .zero)
        group.shutdown()
        throw error
    }
    await server.shutdown(grace: .zero)
    group.shutdown()
}

/// Routes most tests share.
package func standardRoutes(_ router: inout TestRouter) {
    router.add(.get, "/hello") { _, _ in .text(.ok, "hello") }
    router.add(.get, "/echo/{word}") { request, _ in .text(.ok, request.pathParameters["word"] ?? "") }
    router.add(.post, "/echo") { request, _ in HTTPResponse(status: .ok, body: request.body) }
    router.add(.get, "/big/{bytes}") { request, _ in
        let count = Int(request.pathParameters["bytes"] ?? "") ?? 0
        return HTTPResponse(status: .ok, body: (0..<count).map { UInt8(truncatingIfNeeded: $0 % 251) })
    }
}

/// What the test servers attach to their requests: nothing.
package final class NoAttachment: Sendable {}

/// The routes of a test server.
package typealias TestRouter = Router<NoAttachment>

/// A test server's request context.
package typealias TestContext = AttachedContext<NoAttachment>

/// The promise of a test server's deferred answer.
package typealias TestPromise = AttachedPromise<NoAttachment>
