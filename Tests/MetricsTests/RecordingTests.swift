import Testing

@testable import Metrics

@Suite("Recording")
struct RecordingTests {
    @Test("a counter counts")
    func counterCounts() {
        let counter = MetricsRegistry(prefix: "").counter("c_total", help: "h")
        counter.increment()
        counter.increment(by: 41)
        counter.increment(by: 0)
        #expect(counter.value == 42)
    }

    @Test("a gauge sets, increments and decrements")
    func gaugeMoves() {
        let gauge = MetricsRegistry(prefix: "").gauge("g", help: "h")
        #expect(gauge.value == 0)
        gauge.increment()
        gauge.increment(by: 2.5)
        gauge.decrement()
        #expect(gauge.value == 2.5)
        gauge.decrement(by: 4)
        #expect(gauge.value == -1.5)
        gauge.set(10)
        #expect(gauge.value == 10)
    }

    @Test("8 tasks × 10,000 increments give the exact total")
    func concurrentCounter() async {
        let registry = MetricsRegistry(prefix: "")
        let counter = registry.counter("c_total", help: "h")
        await hammer { counter.increment() }
        #expect(counter.value == 80_000)
        #expect(text(of: registry).hasSuffix("\nc_total 80000\n"))
    }

    @Test("concurrent gauge increments and decrements lose no update")
    func concurrentGauge() async {
        let gauge = MetricsRegistry(prefix: "").gauge("g", help: "h")
        await hammer { gauge.increment(by: 2) }
        #expect(gauge.value == 160_000)
        await hammer { gauge.decrement() }
        #expect(gauge.value == 80_000)
    }

    @Test("concurrent observations keep count and sum exact")
    func concurrentHistogram() async {
        let histogram = MetricsRegistry(prefix: "").histogram("h", help: "h", buckets: [1, 2])
        await hammer { histogram.observe(1.5) }
        let snapshot = histogram.snapshot()
        #expect(snapshot.count == 80_000)
        #expect(snapshot.sum == 120_000)
        #expect(snapshot.buckets.map(\.cumulativeCount) == [0, 80_000, 80_000])
    }

    @Test("scrapes taken while recording always parse, with +Inf equal to _count")
    func scrapeDuringRecording() async throws {
        let registry = MetricsRegistry(prefix: "")
        let histogram = registry.histogram(
            "latency_seconds", help: "h", buckets: DefaultBuckets.latencySeconds)
        let counter = registry.counter("c_total", help: "h", labels: [("k", "v")])
        let scrapes = await withTaskGroup(of: [String].self) { group in
            for task in 0..<4 {
                group.addTask {
                    for index in 0..<10_000 {
                        histogram.observe(Double((index + task) % 20) * 0.3)
                        counter.increment()
                    }
                    return []
                }
            }
            group.addTask { (0..<50).map { _ in text(of: registry) } }
            return await group.reduce(into: []) { $0 += $1 }
        }
        for scrape in scrapes {
            _ = try ExpositionParser.parse(scrape)
        }
        #expect(histogram.snapshot().count == 40_000)
        #expect(counter.value == 40_000)
    }
}

/// Runs `body` 10,000 times in each of 8 concurrent tasks.
func hammer(_ body: @escaping @Sendable () -> Void) async {
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<8 {
            group.addTask {
                for _ in 0..<10_000 { body() }
            }
        }
    }
}
