import HTTP1
import HTTPServer
import Metrics

/// `GET /metrics`: Prometheus text exposition 0.0.4, rendered on scrape.
struct MetricsRoutes {
    /// The service's registry, then the process's (unprefixed `process_*`).
    let registries: [MetricsRegistry]

    func register(in router: inout Router) {
        let registries = self.registries
        router.addImmediate(.get, "/metrics") { _, _ in
            var body: [UInt8] = []
            for registry in registries { registry.render(into: &body) }
            return HTTPResponse(
                status: .ok, headers: ["Content-Type": MetricsRegistry.contentType, "Cache-Control": "no-store"], body: body)
        }
    }
}
