import HTTP1
import HTTPServer

/// `GET /healthz` (the process answers) and `GET /readyz` (it wants traffic: not while draining).
struct HealthRoutes {
    let readiness: Readiness

    func register(in router: inout Router<RequestRecord>) {
        // Probes and load balancers ask all the time: their answers are made once, with their
        // fields already in wire form, not serialized from a header list on every answer.
        let healthy = Self.answer(#"{"status":"ok"}"#)
        router.addImmediate(.get, "/healthz") { _, _ in healthy }
        let readiness = self.readiness
        let ready = Self.answer(#"{"status":"ready"}"#)
        router.addImmediate(.get, "/readyz") { _, _ in
            if readiness.isReady { return ready }
            return ProblemDetails(status: .serviceUnavailable, detail: "The service is shutting down.")
                .response(headers: ["Retry-After": "1", "Cache-Control": "no-store"])
        }
    }

    /// A `200` JSON answer that no cache may keep.
    static func answer(_ json: StaticString) -> HTTPResponse {
        var fields = FieldBlock()
        fields.add("Content-Type", "application/json")
        fields.add("Cache-Control", "no-store")
        let body = UnsafeBufferPointer(start: json.utf8Start, count: json.utf8CodeUnitCount)
        return HTTPResponse(status: .ok, fields: fields, body: Array(body))
    }
}
