import Testing

@testable import Metrics

/// Programming errors stop the process at registration; each runs in a child process.
@Suite("Invalid registration")
struct InvalidRegistrationTests {
    @Test("bad names and misuse are refused")
    func refused() async {
        await #expect(processExitsWith: .failure) {
            _ = MetricsRegistry(prefix: "").gauge("1starts_with_digit", help: "h")
        }
        await #expect(processExitsWith: .failure) {
            _ = MetricsRegistry(prefix: "bad-prefix_").gauge("g", help: "h")
        }
        await #expect(processExitsWith: .failure) {
            _ = MetricsRegistry(prefix: "").gauge("g", help: "h", labels: [("bad:label", "v")])
        }
        await #expect(processExitsWith: .failure) {
            _ = MetricsRegistry(prefix: "").counter("requests", help: "h")  // no _total
        }
        await #expect(processExitsWith: .failure) {
            let registry = MetricsRegistry(prefix: "")
            _ = registry.counter("x_total", help: "h")
            _ = registry.gauge("x_total", help: "h")
        }
        await #expect(processExitsWith: .failure) {
            _ = MetricsRegistry(prefix: "").histogram("h", help: "h", buckets: [2, 1])
        }
        await #expect(processExitsWith: .failure) {
            _ = MetricsRegistry(prefix: "").histogram(
                "h", help: "h", labels: [("le", "1")], buckets: [1])
        }
        await #expect(processExitsWith: .failure) {
            MetricsRegistry(prefix: "").counter("c_total", help: "h").increment(by: -1)
        }
    }

    @Test("valid names with colons and underscores are accepted")
    func accepted() {
        #expect(PrometheusNames.isValidMetricName("job:rate_5m"))
        #expect(PrometheusNames.isValidMetricName("_private"))
        #expect(!PrometheusNames.isValidMetricName(""))
        #expect(!PrometheusNames.isValidMetricName("é"))
        #expect(PrometheusNames.isValidLabelName("_a1"))
        #expect(!PrometheusNames.isValidLabelName("a:b"))
        #expect(!PrometheusNames.isValidLabelName("9a"))
    }
}
