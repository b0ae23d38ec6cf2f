@testable import App
import EventLoop
import Testing

@Suite("Service metrics")
struct ServiceMetricsTests {
    /// A handler that outlives its stopped loop (the app stopping under a slow load) still counts
    /// its answer, from whatever thread it ends on. (It trapped: "LoopLocal used off its loop".)
    @Test func aRequestAnsweredAfterItsLoopStoppedIsStillCounted() throws {
        let group = try EventLoopGroup(loopCount: 1)
        let metrics = ServiceMetrics(group: group)
        group.shutdown()
        metrics.request(on: group.loops[0], route: "/products/{id}", method: "GET", status: 200, duration: .milliseconds(3))
        let text = String(decoding: metrics.registry.render(), as: UTF8.self)
        #expect(text.contains(#"product_details_http_requests_total{route="/products/{id}",method="GET",code="200"} 1"#))
    }
}
