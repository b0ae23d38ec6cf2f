import HTTP1
import HTTPServer

/// `GET /healthz` (the process answers) and `GET /readyz` (it wants traffic: not while draining).
struct HealthRoutes {
    let readiness: Readiness

    func register(in router: inout Router<RequestRecord>) {
        let healthy = HTTPResponse.json(.ok, Array(#"{"status":"ok"}"#.utf8), headers: ["Cache-Control": "no-store"])
        router.addImmediate(.get, "/healthz") { _, _ in healthy }
        let readiness = self.readiness
        router.addImmediate(.get, "/readyz") { _, _ in
            if readiness.isReady {
                return .json(.ok, Array(#"{"status":"ready"}"#.utf8), headers: ["Cache-Control": "no-store"])
            }
            return ProblemDetails(status: .serviceUnavailable, detail: "The service is shutting down.")
                .response(headers: ["Retry-After": "1", "Cache-Control": "no-store"])
        }
    }
}
