import Fleet
import Logging
import HTTPServer
import ProductDetails
import Timekeeping

/// Every route of the service behind its front handler: what the server's responder answers
/// with, built in one place so that the in-memory route tests answer exactly as the server does.
enum AppRoutes {
    static func front(
        service: ProductDetailsService, readiness: Readiness, metrics: ServiceMetrics, logger: Logger, adminToken: String?,
        compression: ResponseCompression, surrogateKeyHeader: String? = nil, fleet: FleetRuntime? = nil, time: any TimeSource
    ) -> FrontHandler {
        var router = Router<RequestRecord>()
        HealthRoutes(readiness: readiness).register(in: &router)
        ProductRoutes(service: service, surrogateKeyHeader: surrogateKeyHeader, compression: compression).register(in: &router)
        AdminRoutes(service: service, token: adminToken, fleet: fleet).register(in: &router)
        MetricsRoutes(registries: [metrics.registry, ProcessMetrics(version: AppVersion.current).registry], compression: compression)
            .register(in: &router)
        return FrontHandler(router: router, metrics: metrics, logger: logger, time: time)
    }
}
