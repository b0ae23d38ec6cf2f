import EventLoop
import HTTP1
import HTTPServer
import Locking
import Testing
import TestSupport

/// The request context as routes, deferred work and the answer observer see it: what the
/// responder attached arrives typed everywhere, and what it filled in stays where it put it.
@Suite("Attached request context")
struct AttachedContextTests {
    final class Note: Sendable {
        let text: String
        init(_ text: String) { self.text = text }
    }

    final class OtherNote: Sendable {}

    /// What each step saw of the request's note, in order.
    final class Seen: Sendable {
        let lines = Locked<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
    }

    static func routes(_ seen: Seen) -> Router<Note> {
        var router = Router<Note>()
        router.add(.get, "/page/{id}", responder: { request, context in
            seen.add("route \(context.route) \(context.attachment?.text ?? "none")")
            guard request.pathParameters["id"] != "now" else { return .now(.text(.ok, "now")) }
            return .deferred { (promise: AttachedPromise<Note>) in
                seen.add("promise \(promise.context.attachment?.text ?? "none")")
                // Replaced for the task and the observer, as a route that hands on a request does.
                promise.context.attachment = Note("handed on")
                promise.later { _, context in
                    seen.add("task \(context.requestID) \(context.attachment?.text ?? "none")")
                    return .text(.ok, "later")
                }
            }
        })
        return router
    }

    /// Runs a request through the front responder the server would call, its deferred work, and
    /// the observer, without a socket.
    static func answer(_ path: String, seen: Seen) async throws -> HTTPResponse {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let router = routes(seen)
        let responder = AttachedContext<Note>.responder { request, context in
            context.requestID = "r1"
            context.attachment = Note("front")
            return router.respond(to: &request, context: &context)
        }
        let observer = AnsweredRequest<Note>.observer { _, answered in
            seen.add("observer \(answered.context.route) \(answered.context.requestID) \(answered.context.attachment?.text ?? "none")")
        }
        var request = HTTPRequest(head: HTTPRequestHead(method: .get, target: path, path: path, version: .http1_1, headers: ["Host": "t"]))
        var context = RequestContext(loop: group.loops[0], receivedAt: .now)
        let answer = responder(&request, &context)
        var response = await answer.response(to: request, context: &context)
        observer(&response, request.head, context, .responder)
        return response
    }

    @Test func theResponderRouteAndObserverSeeTheAttachmentTypedAndInPlace() async throws {
        let seen = Seen()
        let response = try await Self.answer("/page/now", seen: seen)
        #expect(Array(response.body) == Array("now".utf8))
        #expect(seen.lines.withLock { $0 } == ["route /page/{id} front", "observer /page/{id} r1 front"])
    }

    @Test func deferredWorkSeesWhatThePromiseAttached() async throws {
        let seen = Seen()
        let response = try await Self.answer("/page/p1", seen: seen)
        #expect(Array(response.body) == Array("later".utf8))
        #expect(seen.lines.withLock { $0 } == [
            "route /page/{id} front", "promise front", "task r1 handed on", "observer /page/{id} r1 handed on",
        ])
    }

    @Test func aRouteTypedForAnotherAttachmentReadsNone() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let read = Locked<[Bool]>([])
        var router = Router<OtherNote>()
        router.addImmediate(.get, "/x") { _, context in
            read.withLock { $0.append(context.attachment == nil) }
            return .text(.ok, "x")
        }
        let frozen = router
        // The plain context carries a `Note`; the route asks for an `OtherNote`.
        let front = AttachedContext<Note>.responder { request, context in
            context.attachment = Note("front")
            return AttachedContext<OtherNote>.responder { request, context in frozen.respond(to: &request, context: &context) }(
                &request, &context.core)
        }
        var request = HTTPRequest(head: HTTPRequestHead(method: .get, target: "/x", path: "/x", version: .http1_1, headers: ["Host": "t"]))
        var context = RequestContext(loop: group.loops[0], receivedAt: .now)
        guard case .now(let response) = front(&request, &context) else {
            Issue.record("the immediate route deferred")
            return
        }
        #expect(response.status == .ok)
        #expect(read.withLock { $0 } == [true])
    }
}
