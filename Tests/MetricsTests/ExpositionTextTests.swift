import Testing

@testable import Metrics

@Suite("Exposition text")
struct ExpositionTextTests {
    @Test("a small registry renders exactly the expected exposition")
    func exactExposition() {
        let registry = MetricsRegistry(prefix: "app_")
        let requests = registry.counter("requests_total", help: "Requests served.")
        let ok = registry.counter(
            "responses_total", help: "Responses by status.",
            labels: [("route", "/products/{id}"), ("status", "200")])
        let failed = registry.counter(
            "responses_total", help: "Responses by status.",
            labels: [("route", "/products/{id}"), ("status", "500")])
        let inFlight = registry.gauge("requests_in_flight", help: "Requests being answered.")
        registry.gauge("cache_entries", help: "Entries in the response cache.") { 42 }
        let latency = registry.histogram(
            "request_duration_seconds", help: "Time to answer.",
            labels: [("route", "/products/{id}")], buckets: [0.005, 0.25, 1])

        requests.increment(by: 3)
        ok.increment()
        failed.increment(by: 2)
        inFlight.set(2.5)
        latency.observe(0.00390625)  // first bucket
        latency.observe(.milliseconds(250))  // exactly on a bound: `le` is inclusive
        latency.observe(4)  // only +Inf

        let expected = """
            # HELP app_requests_total Requests served.
            # TYPE app_requests_total counter
            app_requests_total 3
            # HELP app_responses_total Responses by status.
            # TYPE app_responses_total counter
            app_responses_total{route="/products/{id}",status="200"} 1
            app_responses_total{route="/products/{id}",status="500"} 2
            # HELP app_requests_in_flight Requests being answered.
            # TYPE app_requests_in_flight gauge
            app_requests_in_flight 2.5
            # HELP app_cache_entries Entries in the response cache.
            # TYPE app_cache_entries gauge
            app_cache_entries 42
            # HELP app_request_duration_seconds Time to answer.
            # TYPE app_request_duration_seconds histogram
            app_request_duration_seconds_bucket{route="/products/{id}",le="0.005"} 1
            app_request_duration_seconds_bucket{route="/products/{id}",le="0.25"} 2
            app_request_duration_seconds_bucket{route="/products/{id}",le="1"} 2
            app_request_duration_seconds_bucket{route="/products/{id}",le="+Inf"} 3
            app_request_duration_seconds_sum{route="/products/{id}"} 4.25390625
            app_request_duration_seconds_count{route="/products/{id}"} 3

            """
        #expect(text(of: registry) == expected)
    }

    @Test("an empty registry renders nothing")
    func emptyRegistry() {
        #expect(MetricsRegistry(prefix: "app_").render().isEmpty)
    }

    @Test("HELP escapes backslash and newline, and leaves quotes alone")
    func helpEscaping() {
        let registry = MetricsRegistry(prefix: "")
        _ = registry.gauge("g", help: #"a "quoted" C:\path"# + "\nsecond line")
        #expect(text(of: registry) == #"""
            # HELP g a "quoted" C:\\path\nsecond line
            # TYPE g gauge
            g 0

            """#)
    }

    @Test("label values escape backslash, quote and newline")
    func labelValueEscaping() throws {
        let registry = MetricsRegistry(prefix: "")
        let value = #"back\slash "quote""# + "\nnew"
        registry.counter("c_total", help: "h", labels: [("v", value)]).increment()
        #expect(text(of: registry).contains(#"c_total{v="back\\slash \"quote\"\nnew"} 1"#))

        let families = try ExpositionParser.parse(text(of: registry))
        #expect(families.first?.samples.first?.labels["v"] == value)
    }

    @Test("non-ASCII help and label values pass through as UTF-8")
    func unicodePassesThrough() throws {
        let registry = MetricsRegistry(prefix: "")
        _ = registry.gauge("g", help: "Größe ✓", labels: [("city", "Zürich")])
        let families = try ExpositionParser.parse(text(of: registry))
        #expect(families.first?.help == "Größe ✓")
        #expect(families.first?.samples.first?.labels["city"] == "Zürich")
    }

    @Test("gauges render special and fractional values", arguments: [
        (0.0, "0"), (-0.0, "0"), (1, "1"), (-3, "-3"), (2.5, "2.5"), (-0.125, "-0.125"),
        (0.0005, "0.0005"), (1e-7, "1e-07"), (1e15, "1000000000000000"), (1e20, "1e+20"),
        (.infinity, "+Inf"), (-.infinity, "-Inf"), (.nan, "NaN"),
    ] as [(Double, String)])
    func gaugeValueFormatting(value: Double, rendered: String) {
        let registry = MetricsRegistry(prefix: "")
        registry.gauge("g", help: "h").set(value)
        #expect(text(of: registry).hasSuffix("\ng \(rendered)\n"))
    }

    @Test("rendered numbers parse back to the same Double", arguments: DefaultBuckets.latencySeconds
        + [0.1, 1.0 / 3, 123_456.789, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0x1p70,
        -9_007_199_254_740_994])
    func numbersRoundTrip(value: Double) {
        var bytes: [UInt8] = []
        bytes.appendSampleValue(value)
        let rendered = String(decoding: bytes, as: UTF8.self)
        #expect(ExpositionParser.parseValue(rendered) == value)
        #expect(!rendered.hasSuffix(".0"))
    }

    @Test("integers are written exactly, including the extremes", arguments: [
        0, 7, 10, 1_000_000, -42, Int.max, Int.min,
    ])
    func integerFormatting(value: Int) {
        var bytes: [UInt8] = []
        bytes.appendInteger(value)
        #expect(String(decoding: bytes, as: UTF8.self) == String(value))
    }

    @Test("the content type names version 0.0.4")
    func contentType() {
        #expect(MetricsRegistry.contentType == "text/plain; version=0.0.4; charset=utf-8")
    }

    @Test("render(into:) appends after what the buffer already holds")
    func renderIntoAppends() {
        let registry = MetricsRegistry(prefix: "")
        registry.counter("c_total", help: "h").increment()
        var buffer = Array("HTTP body: ".utf8)
        registry.render(into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self)
            == "HTTP body: # HELP c_total h\n# TYPE c_total counter\nc_total 1\n")
    }
}

func text(of registry: MetricsRegistry) -> String {
    String(decoding: registry.render(), as: UTF8.self)
}
