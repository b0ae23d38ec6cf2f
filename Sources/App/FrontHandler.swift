import HTTP1
import HTTPServer

/// What every request goes through before and after its route: a request id, the route's
/// answer, the request metrics and the request's log line.
struct FrontHandler: Sendable {
    let router: Router
    let metrics: ServiceMetrics
    let logger: Logger

    func respond(to request: HTTPRequest, context: RequestContext) async -> HTTPResponse {
        var context = context
        context.requestID = RequestIdentity.identify(request)
        let record = RequestRecord()
        var (response, route) = await RequestRecord.$current.withValue(record) {
            await router.dispatch(request, context: context)
        }
        response.headers.add(name: "X-Request-ID", value: context.requestID)
        let duration = context.receivedAt.duration(to: .now)
        metrics.request(on: context.loop, route: route, method: request.method.rawValue, status: response.status.code, duration: duration)
        if logger.logsRequests {
            logger.request(
                method: request.method.rawValue, route: route, status: response.status.code, duration: duration,
                cache: record.cacheResult, upstreamAttempts: record.upstreamAttempts, requestID: context.requestID)
        }
        return response
    }
}
