import Testing

@testable import Metrics

@Suite("Registration")
struct RegistrationTests {
    @Test("the same name and labels return the same instance")
    func sameSeriesSameInstance() {
        let registry = MetricsRegistry(prefix: "p_")
        let counter = registry.counter("hits_total", help: "h", labels: [("a", "1")])
        #expect(registry.counter("hits_total", help: "h", labels: [("a", "1")]) === counter)
        #expect(registry.counter("hits_total", help: "h", labels: [("a", "2")]) !== counter)
        #expect(registry.counter("hits_total", help: "h") !== counter)

        let gauge = registry.gauge("level", help: "h")
        #expect(registry.gauge("level", help: "h") === gauge)

        let histogram = registry.histogram("seconds", help: "h", buckets: [1, 2])
        #expect(registry.histogram("seconds", help: "h", buckets: [1, 2]) === histogram)
    }

    @Test("label order does not make a new series; the first order is the one rendered")
    func labelOrderIsIgnoredForIdentity() {
        let registry = MetricsRegistry(prefix: "")
        let first = registry.counter("c_total", help: "h", labels: [("b", "2"), ("a", "1")])
        let second = registry.counter("c_total", help: "h", labels: [("a", "1"), ("b", "2")])
        #expect(first === second)
        second.increment()
        #expect(text(of: registry).hasSuffix("c_total{b=\"2\",a=\"1\"} 1\n"))
    }

    @Test("series of one family share one HELP/TYPE block, in registration order")
    func seriesGroupUnderTheirFamily() throws {
        let registry = MetricsRegistry(prefix: "")
        let b = registry.counter("requests_total", help: "first help wins", labels: [("s", "b")])
        _ = registry.gauge("other", help: "h")
        let a = registry.counter("requests_total", help: "ignored", labels: [("s", "a")])
        b.increment()
        a.increment(by: 2)

        let families = try ExpositionParser.parse(text(of: registry))
        #expect(families.map(\.name) == ["requests_total", "other"])
        #expect(families[0].help == "first help wins")
        #expect(families[0].samples.map { $0.labels["s"] } == ["b", "a"])
        #expect(families[0].samples.map(\.value) == [1, 2])
    }

    @Test("the prefix is prepended to every name")
    func prefixIsApplied() {
        let registry = MetricsRegistry(prefix: "product_details_")
        _ = registry.gauge("up", help: "h")
        #expect(text(of: registry).hasPrefix("# HELP product_details_up h\n"))
        #expect(registry.prefix == "product_details_")
    }

    @Test("a read gauge is read at scrape time, and re-registering replaces its closure")
    func readGauge() {
        let registry = MetricsRegistry(prefix: "")
        let entries = Gauge()  // stands in for a component's own state
        registry.gauge("entries", help: "h", labels: [("cache", "a")]) { entries.value }
        #expect(text(of: registry).hasSuffix("entries{cache=\"a\"} 0\n"))
        entries.set(5)
        #expect(text(of: registry).hasSuffix("entries{cache=\"a\"} 5\n"))

        registry.gauge("entries", help: "h", labels: [("cache", "a")]) { 9 }
        #expect(text(of: registry) == """
            # HELP entries h
            # TYPE entries gauge
            entries{cache="a"} 9

            """)
    }

    @Test("stored and read gauges can be series of one family")
    func mixedGaugeFamily() throws {
        let registry = MetricsRegistry(prefix: "")
        registry.gauge("size", help: "h", labels: [("kind", "stored")]).set(1)
        registry.gauge("size", help: "h", labels: [("kind", "read")]) { 2 }
        let families = try ExpositionParser.parse(text(of: registry))
        #expect(families.count == 1)
        #expect(families[0].samples.map(\.value) == [1, 2])
    }

    @Test("concurrent registration of one series yields one instance")
    func concurrentRegistration() async {
        let registry = MetricsRegistry(prefix: "")
        let identities = await withTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    ObjectIdentifier(registry.counter("c_total", help: "h", labels: [("k", "v")]))
                }
            }
            return await group.reduce(into: Set()) { $0.insert($1) }
        }
        #expect(identities.count == 1)
    }
}

@Suite("Read-at-scrape counters")
struct ReadCounterTests {
    @Test func aReadCounterRendersTheCurrentCountAsACounter() {
        let registry = MetricsRegistry(prefix: "app_")
        let source = Counter()
        registry.counter("opened_total", help: "Things opened.") { source.value }
        source.increment(by: 3)
        let text = String(decoding: registry.render(), as: UTF8.self)
        #expect(text.contains("# TYPE app_opened_total counter\n"))
        #expect(text.contains("app_opened_total 3\n"))
    }
}
