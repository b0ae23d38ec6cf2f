import Fleet
import HTTP1
import HTTPServer
import ProductDetails

/// `DELETE /cache/products/{id}`, `POST /cache/invalidations` (many products in one call) and
/// `DELETE /cache`, behind `Authorization: Bearer $ADMIN_TOKEN`. A product's invalidation reaches
/// its own page and every page that shows it.
struct AdminRoutes {
    let service: ProductDetailsService
    /// Nil: the routes answer that they are turned off.
    let token: String?
    /// Fleet mode: invalidations go to every replica.
    let fleet: FleetRuntime?

    func register(in router: inout Router<RequestRecord>) {
        let service = self.service
        let fleet = self.fleet
        let guardian = BearerGuard(token: token)
        router.add(.delete, "/cache/products/{id}") { request, context in
            if let refusal = guardian.refusal(for: request) { return refusal }
            let id = request.pathParameters["id"] ?? ""
            guard ProductDetailsService.isValidID(id) else { return ProductRoutes.problem(.invalidID, record: context.record) }
            let reach = await service.invalidate(.product(id))
            fleet?.published(reach, scope: .product(id))
            return Self.answer(reach)
        }
        router.add(.post, "/cache/invalidations") { request, _ in
            if let refusal = guardian.refusal(for: request) { return refusal }
            switch BulkInvalidationBody.products(contentType: request.headers["Content-Type"], body: request.body) {
            case .success(let ids):
                let scope = InvalidationScope.products(ids)
                let reach = await service.invalidate(scope)
                fleet?.published(reach, scope: scope)
                return Self.answer(reach)
            case .failure(let problem):
                return Self.refusal(problem)
            }
        }
        router.add(.delete, "/cache") { request, _ in
            if let refusal = guardian.refusal(for: request) { return refusal }
            let reach = await service.invalidate(.everything)
            fleet?.published(reach, scope: .everything)
            return Self.answer(reach)
        }
    }

    static func refusal(_ problem: BulkInvalidationBody.Problem) -> HTTPResponse {
        let details = switch problem {
        case .unsupportedMediaType(let type):
            ProblemDetails(
                status: HTTPStatus(code: 415),
                detail: "Send the ids as Content-Type: application/json, not \"\(type.prefix(100))\".")
        case .tooLarge:
            ProblemDetails(status: HTTPStatus(code: 413), detail: "The body is over \(BulkInvalidationBody.maxBytes) bytes.")
        case .invalid(let reason):
            ProblemDetails(status: .badRequest, detail: reason + " Nothing was invalidated.")
        }
        var headers: HTTPHeaders = ["Cache-Control": "no-store"]
        if case .unsupportedMediaType = problem { headers.add(name: "Accept-Post", value: "application/json") }
        return details.response(headers: headers)
    }

    /// 204, with the number of replicas that received it in fleet mode; 503 when the fleet could
    /// not be told, since this replica alone forgetting is not what was asked.
    static func answer(_ reach: InvalidationReach) -> HTTPResponse {
        switch reach {
        case .local:
            return HTTPResponse(status: .noContent)
        case .fleet(let receivers):
            return HTTPResponse(status: .noContent, headers: ["X-Invalidation-Receivers": String(receivers)])
        case .localOnly(let failure):
            let reason: String
            switch failure {
            case .timedOut: reason = "Redis did not answer in time."
            case .unavailable(let detail): reason = detail
            case .cancelled: reason = "The request was cancelled while Redis was asked."
            }
            return ProblemDetails(
                status: HTTPStatus(code: 503),
                detail: "This replica forgot, but the other replicas could not be told: \(reason) Retry once Redis is reachable."
            ).response(headers: ["Retry-After": "1", "Cache-Control": "no-store"])
        }
    }
}

/// Checks a bearer token in constant time (no early exit on the first differing byte, and the
/// length of the expected token does not leak through timing).
struct BearerGuard: Sendable {
    let token: String?

    func refusal(for request: HTTPRequest) -> HTTPResponse? {
        guard let token else {
            return ProblemDetails(status: HTTPStatus(code: 403), detail: "Admin routes are turned off: the service runs without ADMIN_TOKEN.").response()
        }
        let presented = request.headers["Authorization"].flatMap { value -> Substring? in
            let parts = value.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
            return parts[1].trimmingCharacters()
        }
        if let presented, Self.constantTimeEquals(Array(presented.utf8), Array(token.utf8)) { return nil }
        // RFC 6750 §3.1: a request without a bearer token gets the challenge alone, no error code;
        // a token that is not the right one gets `invalid_token`.
        let challenge = presented == nil ? Self.challenge : Self.challenge + ", error=\"invalid_token\""
        return ProblemDetails(status: .unauthorized, detail: "A valid bearer token is required.")
            .response(headers: ["WWW-Authenticate": challenge])
    }

    static let challenge = "Bearer realm=\"product-details\""

    static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        var difference = UInt64(lhs.count ^ rhs.count)
        for index in 0..<max(lhs.count, rhs.count) {
            let left = index < lhs.count ? lhs[index] : 0
            let right = index < rhs.count ? rhs[index] : 0
            difference |= UInt64(left ^ right)
        }
        return difference == 0
    }
}
