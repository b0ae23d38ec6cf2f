import HTTP1
import HTTPServer
import Metrics

/// `GET /metrics`: Prometheus text exposition 0.0.4, rendered on scrape.
struct MetricsRoutes {
    let registry: MetricsRegistry

    func register(in router: inout Router) {
        let registry = self.registry
        router.addImmediate(.get, "/metrics") { _, _ in
            HTTPResponse(
                status: .ok, headers: ["Content-Type": MetricsRegistry.contentType, "Cache-Control": "no-store"],
                body: registry.render())
        }
    }
}
