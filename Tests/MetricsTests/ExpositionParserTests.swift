import Testing

@testable import Metrics

/// The structural checks run on a registry with every kind of metric, and the checker itself
/// is shown to reject broken expositions, so a pass means something.
@Suite("Well-formed exposition")
struct ExpositionParserTests {
    @Test("every sample belongs to a declared family with HELP and TYPE")
    func fullRegistryIsWellFormed() throws {
        let registry = MetricsRegistry(prefix: "svc_")
        for status in ["200", "404", "500"] {
            registry.counter("responses_total", help: "By status.", labels: [("status", status)])
                .increment(by: status.count)
        }
        registry.gauge("temperature", help: "Line\nbreak \\ help").set(-12.75)
        registry.gauge("entries", help: "Read.", labels: [("cache", "a\"b")]) { .nan }
        let latency = registry.histogram(
            "latency_seconds", help: "Latency.", labels: [("route", "/x")],
            buckets: DefaultBuckets.latencySeconds)
        for millis in stride(from: 0, to: 3_000, by: 7) { latency.observe(.milliseconds(millis)) }
        _ = registry.histogram(
            "latency_seconds", help: "Latency.", labels: [("route", "/y")],
            buckets: DefaultBuckets.latencySeconds)
        registry.counter("idle_total", help: "Never incremented.").increment(by: 0)

        let families = try ExpositionParser.parse(text(of: registry))
        #expect(families.map(\.name) == [
            "svc_responses_total", "svc_temperature", "svc_entries", "svc_latency_seconds",
            "svc_idle_total",
        ])
        #expect(families.map(\.type) == ["counter", "gauge", "gauge", "histogram", "counter"])
        #expect(families[1].help == "Line\nbreak \\ help")
        #expect(families[2].samples.first?.value.isNaN == true)
        #expect(families[3].samples.count == 2 * (DefaultBuckets.latencySeconds.count + 3))
    }

    @Test("the checker rejects broken expositions", arguments: [
        "x 1\n",  // no family
        "# HELP x h\nx 1\n",  // HELP without TYPE
        "# TYPE x gauge\nx 1\n",  // TYPE without HELP
        "# HELP x h\n# TYPE x gauge\ny 1\n",  // sample of another family
        "# HELP x h\n# TYPE x gauge\nx 1\n# HELP x h\n# TYPE x gauge\n",  // declared twice
        "# HELP x h\n# TYPE x gauge\nx{a=\"1\"} 1\nx{a=\"1\"} 2\n",  // duplicate series
        "# HELP x h\n# TYPE x gauge\nx{a=\"unclosed} 1\n",
        "# HELP x h\n# TYPE x gauge\nx 1",  // no final newline
        "# HELP x h\n# TYPE x histogram\nx_bucket{le=\"1\"} 2\nx_bucket{le=\"+Inf\"} 1\n"
            + "x_sum 1\nx_count 1\n",  // not cumulative
        "# HELP x h\n# TYPE x histogram\nx_bucket{le=\"+Inf\"} 2\nx_sum 1\nx_count 3\n",
    ])
    func checkerRejects(exposition: String) {
        #expect(throws: ExpositionParser.Failure.self) {
            try ExpositionParser.parse(exposition)
        }
    }
}
