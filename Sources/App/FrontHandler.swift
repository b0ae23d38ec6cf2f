import Logging
import HTTP1
import HTTPServer
import ProductDetails
import Timekeeping

/// What every request goes through before and after its route, and the one place every answer
/// passes (``answered(_:_:)``, the server's answer observer): its request id, the request
/// metrics and the request's log line, whoever gave the answer.
struct FrontHandler: Sendable {
    let router: Router<RequestRecord>
    let metrics: ServiceMetrics
    let logger: Logger
    /// The application's time line (the rejection lines' window).
    let time: any TimeSource
    /// Lines for answers a client caused without reaching a route (garbage, timeouts, unknown
    /// paths): a hostile client decides how many there are.
    let rejectionLines = LogRateLimiter(linesPerSecond: 20)

    /// The server's responder, on the loop thread: the routes that can answer without waiting (a
    /// cached page, health, 404) do so here, with no task; the others' work is deferred. Both
    /// find the request's record in the context (`context.record`), which deferred work always
    /// has: its upstream calls take the record's id and trace, and the loads it starts report
    /// their work to it (``LoadObserver``).
    func respond(to request: inout HTTPRequest, context: inout ProductContext) -> ResponderAnswer {
        // Only a log line needs the id as text at once; else `answered` writes it into the
        // answer's fields, unless the request waits (its upstream calls carry the id).
        let record = logger.logsRequests ? RequestRecord(requestID: RequestIdentity.identify(request), trace: Self.trace(of: request)) : nil
        // The same call in both branches on purpose: as one call after the `if`, the release
        // build retains more per answer (bench/counts.py shows it).
        let answer: ResponderAnswer
        if let record {
            context.requestID = record.requestID
            context.record = record
            answer = router.respond(to: &request, context: &context)
        } else {
            answer = router.respond(to: &request, context: &context)
        }
        // A deferred answer may come without a task, as an immediate one does: its route
        // attaches the record only if it hands the request to a task (``attachRecord``).
        guard case .waiting = answer, record == nil else { return answer }
        Self.attachRecord(to: &context, for: request)
        return answer
    }

    /// Gives a request that goes on in a task its record (unless it has one): its upstream
    /// calls carry the record's id and trace, and its loads report their work to it.
    static func attachRecord(to context: inout ProductContext, for request: HTTPRequest) {
        guard context.record == nil else { return }
        if context.requestID.isEmpty { context.requestID = RequestIdentity.identify(request) }
        context.record = RequestRecord(requestID: context.requestID, trace: trace(of: request))
    }

    /// Every answer the server writes: adds the request id, counts it, writes its line. In place:
    /// a copy of the response would share its field block, and adding a field would copy it.
    func answered(_ response: inout HTTPResponse, _ request: AnsweredRequest<RequestRecord>) {
        let status = response.status.code
        let record = request.context.record
        let route = request.context.route.isEmpty ? RequestContext.unmatchedRoute : request.context.route
        let method = request.head?.method.rawValue ?? "other"
        let duration = request.context.receivedAt.duration(to: .now)
        metrics.request(on: request.context.loop, route: route, method: method, status: status, duration: duration)
        if response.coding != .fixed {
            metrics.compression.answered(response.coding, writtenBytes: request.head?.method == .head ? 0 : response.body.count)
        }

        let level: Logger.Level = status >= 500 ? .warn : .info
        var requestID = record?.requestID ?? request.context.requestID
        guard level >= logger.minimum else {
            // No line: the id goes straight into the answer, no String made for a new one.
            if requestID.isEmpty {
                RequestIdentity.addField(for: request.head, to: &response.fields)
            } else {
                response.fields.add("X-Request-ID", requestID)
            }
            return
        }
        if requestID.isEmpty { requestID = RequestIdentity.identify(request.head) }
        response.fields.add("X-Request-ID", requestID)

        var heldBack = 0
        if Self.isClientRejection(request.source, route: route, status: status) {
            guard let held = rejectionLines.admit(now: time.now) else { return }
            heldBack = held
        }
        let fields = Self.lineFields(record: record, source: request.source, level: level, heldBack: heldBack)
        logger.request(
            method: method, route: route, status: status, duration: duration, cache: record?.cacheResult ?? "none",
            encoding: Self.encoding(of: response.coding),
            upstreamAttempts: record?.upstreamAttempts ?? 0, requestID: requestID, trace: record?.trace,
            loadTraceID: record?.loadTraceID, level: level, fields: fields)
    }

    /// The line's fields after the trace: who answered, why a 5xx, lines held back (none, and no
    /// array made, for an ordinary answer).
    /// Built apart from `answered`: as one function the release build's optimizer crashed on it
    /// (Swift 6.3.1).
    static func lineFields(record: RequestRecord?, source: AnswerSource, level: Logger.Level, heldBack: Int) -> [(String, String)] {
        var fields: [(String, String)] = []
        if source != .responder { fields.append(("answeredBy", name(of: source))) }
        if let detail = record?.cacheDetail { fields.append(("cacheDetail", detail)) }
        if level >= .warn { fields += record?.failureFields ?? cause(of: source) }
        if heldBack > 0 { fields.append(("rejectionLinesHeldBack", String(heldBack))) }
        return fields
    }

    /// The client's W3C trace (`traceparent`, `tracestate`), or a new one when it sent none that
    /// can be read.
    static func trace(of request: HTTPRequest) -> TraceContext {
        TraceContext.parse(traceparent: request.headers["traceparent"], tracestate: tracestate(of: request)) ?? .start()
    }

    /// Several `tracestate` fields are one list (RFC 9110 §5.3), passed on as one.
    private static func tracestate(of request: HTTPRequest) -> String? {
        let values = request.headers.values("tracestate")
        return values.isEmpty ? nil : values.joined(separator: ",")
    }

    /// The log line's `encoding`: the content coding of the body sent.
    static func encoding(of coding: ResponseCoding) -> String {
        if case .gzip = coding { "gzip" } else { "identity" }
    }

    /// Refusals a client brings about by itself, before any route: their lines are rate-limited.
    static func isClientRejection(_ source: AnswerSource, route: String, status: Int) -> Bool {
        switch source {
        case .malformedRequest, .readTimeout: true
        case .responder: route == RequestContext.unmatchedRoute && (400..<500).contains(status)
        case .overload, .shutdown: false
        }
    }

    /// Why the server itself answered a 5xx.
    static func cause(of source: AnswerSource) -> [(String, String)] {
        switch source {
        case .overload: [("cause", "MAX_INFLIGHT_REQUESTS reached")]
        case .shutdown: [("cause", "shutdown grace period ended")]
        case .responder, .malformedRequest, .readTimeout: []
        }
    }

    static func name(of source: AnswerSource) -> String {
        switch source {
        case .responder: "route"
        case .overload: "overload"
        case .malformedRequest: "http"
        case .readTimeout: "http-timeout"
        case .shutdown: "shutdown"
        }
    }
}
