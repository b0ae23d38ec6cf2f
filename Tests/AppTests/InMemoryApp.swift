@testable import Logging
import Fleet
@testable import App
import EventLoop
import HTTP1
import HTTPServer
import ProductDetails
import Testing
import Timekeeping
import TestSupport

/// The service's routes answered in memory: a request goes through the front handler and its
/// route as the server would pass it (parsed from its bytes, answered now or after waiting, then
/// seen by the answer observer), with upstreams as plain values and time moved by hand. No socket;
/// one loop only because a request's context names one.
struct InMemoryApp {
    let time = ManualTimeSource()
    let upstream: InMemoryUpstream
    let service: ProductDetailsService
    let front: FrontHandler
    let loop: EventLoop
    /// Fleet mode: the shared cache, in memory; `nil` on a single node.
    let sharedStore: InMemorySharedPageStore?
    /// The service's shared cache, in fleet mode.
    let sharedCache: SharedCache?
    /// Gives pages their gzip variant, and batches and `/metrics` theirs, as production does (off
    /// the loop: a compressor per body).
    let pageCompressor: LoopDeflaters
    /// The log lines, complete once `flush` returned.
    let log = LogLines()
    private let writer: LogWriter

    static let adminToken = "admin-secret"

    /// What the server would write, before its own fields (`Date`, `Content-Length`).
    struct Answer {
        let response: HTTPResponse
        /// Whether the responder answered at once, with no task.
        let immediate: Bool

        var status: Int { response.status.code }
        var text: String { String(decoding: response.body, as: UTF8.self) }

        /// A field's value, from the headers or the wire-form field block.
        func header(_ name: String) -> String? {
            if let value = response.headers[name] { return value }
            for line in String(decoding: response.fields.bytes, as: UTF8.self).split(separator: "\r\n") {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == name.lowercased() {
                    return String(parts[1].trimmingCharacters())
                }
            }
            return nil
        }
    }

    private init(
        group: EventLoopGroup, settings: ServiceSettings, adminToken: String?, surrogateKeyHeader: String?, fleet: Bool, events: any ServiceEvents,
        logLevel: Logger.Level
    ) {
        loop = group.loops[0]
        upstream = InMemoryUpstream(time: time)
        writer = LogWriter(capacity: 1 << 16, destination: log.destination)
        let logger = Logger(minimum: logLevel, writer: writer)
        sharedStore = fleet ? InMemorySharedPageStore(time: time) : nil
        pageCompressor = LoopDeflaters(group: group)
        (service, sharedCache) = Self.replica(
            upstream: upstream, settings: settings, time: time, store: sharedStore, compressor: pageCompressor, events: events)
        front = AppRoutes.front(
            service: service, readiness: Readiness(), metrics: ServiceMetrics(group: group), logger: logger, adminToken: adminToken,
            compression: ResponseCompression(deflaters: pageCompressor, minBytes: settings.gzipMinBytes),
            surrogateKeyHeader: surrogateKeyHeader, time: time)
    }

    private static func replica(
        upstream: InMemoryUpstream, settings: ServiceSettings, time: ManualTimeSource, store: InMemorySharedPageStore?,
        compressor: LoopDeflaters, events: any ServiceEvents = NoEvents()
    ) -> (ProductDetailsService, SharedCache?) {
        let shared = store.map { SharedCache(store: $0, time: time) }
        let loads: any LoadPath = if let shared { FleetLoads(shared) } else { LocalLoads() }
        let service = ProductDetailsService(
            products: upstream, reviews: upstream, suggestions: upstream, settings: settings, time: time, events: events,
            loads: loads, compressor: compressor, random: { $0.lowerBound })
        return (service, shared)
    }

    /// Another replica of this app's fleet: its own L1, the app's upstream, shared cache and time.
    func otherReplica(settings: ServiceSettings = ServiceSettings()) async -> ProductDetailsService {
        let (replica, shared) = Self.replica(upstream: upstream, settings: settings, time: time, store: sharedStore, compressor: pageCompressor)
        await shared?.subscribed()
        return replica
    }

    /// Runs `body` with a fresh app; `adminToken` nil turns the admin routes off; `fleet` gives
    /// it an in-memory shared cache (``sharedStore``); `events` hears the service's events;
    /// `logLevel` above `.info` writes no request lines (a request then gets its id as it needs).
    static func with(
        settings: ServiceSettings = ServiceSettings(), adminToken: String? = InMemoryApp.adminToken,
        surrogateKeyHeader: String? = nil, fleet: Bool = false,
        events: any ServiceEvents = NoEvents(), logLevel: Logger.Level = .info, _ body: (InMemoryApp) async throws -> Void
    ) async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let app = InMemoryApp(
            group: group, settings: settings, adminToken: adminToken, surrogateKeyHeader: surrogateKeyHeader, fleet: fleet, events: events,
            logLevel: logLevel)
        // As a running replica, it has read the fleet's invalidation log.
        await app.sharedCache?.subscribed()
        let outcome: Result<Void, any Error>
        do {
            try await body(app)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        _ = app.writer.close(within: .seconds(1))
        // From off the loop: a task that left a loop's executor preference may still be running
        // on the loop's thread until it next suspends, and a loop cannot join its own thread.
        await Task.detached { group.shutdown() }.value
        try outcome.get()
    }

    /// One request, as its bytes would arrive: `GET /products/p1` with `headers` (and `body`,
    /// with its `Content-Length`).
    func request(_ target: String, method: HTTPMethod = .get, headers: [(String, String)] = [], body: [UInt8] = []) async throws -> Answer {
        let length = body.isEmpty ? [] : [("Content-Length", String(body.count))]
        let fields = ([("Host", "t")] + headers + length).map { "\($0.0): \($0.1)\r\n" }.joined()
        var parser = HTTPRequestParser()
        let head = try Array("\(method.rawValue) \(target) HTTP/1.1\r\n\(fields)\r\n".utf8).withUnsafeBytes { bytes in
            guard case .head(let head) = try parser.parse(bytes).event else { throw InMemoryAppError.incompleteHead }
            return head
        }
        var request = HTTPRequest(head: head, body: body)
        var context = ProductContext(loop: loop, receivedAt: .now)
        let answer = front.respond(to: &request, context: &context)
        let immediate = if case .now = answer { true } else { false }
        var response = await answer.response(to: request, context: &context.core)
        front.answered(&response, AnsweredRequest(head: request.head, attached: context, source: .responder))
        return Answer(response: response, immediate: immediate)
    }

    func delete(_ target: String, token: String? = InMemoryApp.adminToken) async throws -> Answer {
        try await request(target, method: .delete, headers: token.map { [("Authorization", "Bearer \($0)")] } ?? [])
    }

    /// `POST /cache/invalidations` with `body`, as JSON unless `contentType` says otherwise.
    func invalidate(
        body: String, contentType: String? = "application/json", token: String? = InMemoryApp.adminToken
    ) async throws -> Answer {
        let headers = (token.map { [("Authorization", "Bearer \($0)")] } ?? []) + (contentType.map { [("Content-Type", $0)] } ?? [])
        return try await request("/cache/invalidations", method: .post, headers: headers, body: Array(body.utf8))
    }

    /// Moves time on in `step`s whenever a task sleeps on it, until `condition` holds (a load
    /// waiting out a hung upstream's time-outs, retries and grace).
    func drive(until condition: () -> Bool, step: Duration = .milliseconds(100)) async {
        for _ in 0..<100_000 {
            if condition() { return }
            if time.sleeperCount + time.scheduledCount > 0 { time.advance(by: step) }
            await Task.yield()
        }
        Issue.record("the condition never held")
    }

    /// Waits until the log lines written so far reached `log`.
    func flushLog() {
        _ = writer.flush(within: .seconds(5))
    }
}

enum InMemoryAppError: Error {
    case incompleteHead
}

extension InMemoryApp.Answer {
    /// The body as an order-preserving JSON value.
    func json() throws -> JSONValue {
        try JSONValue.parse(Array(response.body))
    }
}
