/// The statuses `openapi.yaml` documents for each route and method: the `http_requests_total`
/// series known before any request, so each exists at zero from start-up and an error burst
/// before the first scrape still shows in `rate()`. `ServiceMetricsTests` reads `openapi.yaml`
/// and fails when the two differ.
enum DocumentedAnswers {
    struct Operation {
        let route: String
        let method: String
        let codes: [Int]
    }

    static let operations: [Operation] = [
        Operation(route: "/products/{id}", method: "GET", codes: [200, 304, 400, 404, 502, 503, 504]),
        Operation(route: "/products/{id}", method: "HEAD", codes: [200, 304, 400, 404, 502, 503, 504]),
        Operation(route: "/products", method: "GET", codes: [200, 400, 503]),
        Operation(route: "/products", method: "HEAD", codes: [200, 400, 503]),
        Operation(route: "/cache/products/{id}", method: "DELETE", codes: [204, 400, 401, 403, 404, 503]),
        Operation(route: "/cache/invalidations", method: "POST", codes: [204, 400, 401, 403, 413, 415, 503]),
        Operation(route: "/cache", method: "DELETE", codes: [204, 401, 403, 503]),
        Operation(route: "/metrics", method: "GET", codes: [200]),
        Operation(route: "/metrics", method: "HEAD", codes: [200]),
        Operation(route: "/healthz", method: "GET", codes: [200]),
        Operation(route: "/healthz", method: "HEAD", codes: [200]),
        Operation(route: "/readyz", method: "GET", codes: [200, 503]),
        Operation(route: "/readyz", method: "HEAD", codes: [200, 503]),
    ]
}
