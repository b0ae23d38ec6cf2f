import HTTP1
import HTTPServer
import Metrics

/// `GET /metrics`: Prometheus text exposition 0.0.4, rendered on scrape.
struct MetricsRoutes {
    /// The service's registry, then the process's (unprefixed `process_*`).
    let registries: [MetricsRegistry]
    /// Gzips the exposition for a scraper that accepts it (Prometheus does).
    let compression: ResponseCompression

    func register(in router: inout Router<RequestRecord>) {
        let registries = self.registries
        let compression = self.compression
        router.addImmediate(.get, "/metrics") { request, _ in
            var body: [UInt8] = []
            for registry in registries { registry.render(into: &body) }
            var response = HTTPResponse(
                status: .ok, headers: ["Content-Type": MetricsRegistry.contentType, "Cache-Control": "no-store"], body: body)
            compression.negotiate(&response, for: request)
            return response
        }
    }
}
