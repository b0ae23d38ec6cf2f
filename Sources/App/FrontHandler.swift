import HTTP1
import HTTPServer

/// What every request goes through before and after its route: a request id, the route's
/// answer, the request metrics and the request's log line.
struct FrontHandler: Sendable {
    let router: Router
    let metrics: ServiceMetrics
    let logger: Logger

    /// On the loop thread, before any task: the routes that can answer without waiting (a
    /// cached page, health, 404) do so here. Otherwise nil, and `respond` follows.
    func respondImmediately(to request: inout HTTPRequest, context: inout RequestContext) -> HTTPResponse? {
        let record = logger.logsRequests ? RequestRecord() : nil
        // Only a log line needs the id as text; else `finish` writes it into the answer's fields.
        if record != nil { context.requestID = RequestIdentity.identify(request) }
        var answered: (response: HTTPResponse, route: String)?
        if let record {
            answered = RequestRecord.$current.withValue(record) { router.dispatchImmediately(&request, context: &context) }
        } else {
            answered = router.dispatchImmediately(&request, context: &context)
        }
        // Taken out of the optional, not copied: the id is added to the answer's own fields.
        guard case (var response, let route)? = answered.take() else { return nil }
        finish(&response, route: route, request: request, context: context, record: record)
        return response
    }

    func respond(to request: HTTPRequest, context: RequestContext) async -> HTTPResponse {
        var context = context
        if context.requestID.isEmpty { context.requestID = RequestIdentity.identify(request) }
        // The record only feeds the request's log line: without one, no task-local is bound.
        let record = logger.logsRequests ? RequestRecord() : nil
        var answered: (response: HTTPResponse, route: String)
        if let record {
            answered = await RequestRecord.$current.withValue(record) { await router.dispatch(request, context: context) }
        } else {
            answered = await router.dispatch(request, context: context)
        }
        finish(&answered.response, route: answered.route, request: request, context: context, record: record)
        return answered.response
    }

    /// Adds the request id and records the answer. In place: a copy of the response would share
    /// its field block, and adding a field would copy the block.
    private func finish(
        _ response: inout HTTPResponse, route: String, request: HTTPRequest, context: RequestContext, record: RequestRecord?
    ) {
        if context.requestID.isEmpty {
            RequestIdentity.addField(for: request, to: &response.fields)
        } else {
            response.fields.add("X-Request-ID", context.requestID)
        }
        let duration = context.receivedAt.duration(to: .now)
        metrics.request(on: context.loop, route: route, method: request.method.rawValue, status: response.status.code, duration: duration)
        if let record {
            logger.request(
                method: request.method.rawValue, route: route, status: response.status.code, duration: duration,
                cache: record.cacheResult, upstreamAttempts: record.upstreamAttempts, requestID: context.requestID)
        }
    }
}
