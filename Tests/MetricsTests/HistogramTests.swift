import Testing

@testable import Metrics

@Suite("Histogram")
struct HistogramTests {
    @Test("bucket counts are cumulative and +Inf equals the count")
    func cumulativeBuckets() throws {
        let registry = MetricsRegistry(prefix: "")
        let histogram = registry.histogram("h", help: "h", buckets: [1, 2, 4])
        for value in [0.5, 1, 1.5, 3, 3, 100, -7] {
            histogram.observe(value)
        }
        let snapshot = histogram.snapshot()
        #expect(snapshot.buckets == [
            .init(upperBound: 1, cumulativeCount: 3),
            .init(upperBound: 2, cumulativeCount: 4),
            .init(upperBound: 4, cumulativeCount: 6),
            .init(upperBound: .infinity, cumulativeCount: 7),
        ])
        #expect(snapshot.count == 7)
        #expect(snapshot.sum == 102)

        let samples = try #require(try ExpositionParser.parse(text(of: registry)).first).samples
        let buckets = samples.filter { $0.name == "h_bucket" }
        #expect(buckets.map { $0.labels["le"] } == ["1", "2", "4", "+Inf"])
        #expect(buckets.map(\.value) == [3, 4, 6, 7])
        #expect(samples.first { $0.name == "h_count" }?.value == buckets.last?.value)
        #expect(samples.first { $0.name == "h_sum" }?.value == 102)
    }

    @Test("durations are observed in seconds")
    func durationsInSeconds() {
        let histogram = MetricsRegistry(prefix: "").histogram(
            "h", help: "h", buckets: DefaultBuckets.latencySeconds)
        histogram.observe(.milliseconds(5))  // exactly the 0.005 bound
        histogram.observe(.microseconds(600))
        histogram.observe(.seconds(3))
        let snapshot = histogram.snapshot()
        let counts = Dictionary(uniqueKeysWithValues: snapshot.buckets.map {
            ($0.upperBound, $0.cumulativeCount)
        })
        #expect(counts[0.0005] == 0)
        #expect(counts[0.001] == 1)
        #expect(counts[0.005] == 2)
        #expect(counts[2.5] == 2)
        #expect(counts[5] == 3)
        #expect(snapshot.sum == 3.0056)
    }

    @Test("NaN counts only in +Inf; a trailing +Inf bound is implied, not doubled")
    func edgeValues() {
        let histogram = MetricsRegistry(prefix: "").histogram(
            "h", help: "h", buckets: [1, .infinity])
        #expect(histogram.upperBounds == [1])
        histogram.observe(.nan)
        histogram.observe(-.infinity)
        let snapshot = histogram.snapshot()
        #expect(snapshot.buckets.map(\.cumulativeCount) == [1, 2])
        #expect(snapshot.sum.isNaN)
    }

    @Test("series of one histogram family each get their own buckets")
    func labelledSeries() throws {
        let registry = MetricsRegistry(prefix: "")
        let get = registry.histogram("h", help: "h", labels: [("m", "GET")], buckets: [1])
        let put = registry.histogram("h", help: "h", labels: [("m", "PUT")], buckets: [1])
        get.observe(0.5)
        put.observe(5)
        put.observe(6)
        let families = try ExpositionParser.parse(text(of: registry))
        #expect(families.count == 1)
        let counts = families[0].samples.filter { $0.name == "h_count" }
        #expect(counts.map { $0.labels["m"] } == ["GET", "PUT"])
        #expect(counts.map(\.value) == [1, 2])
    }

    @Test("a histogram without bounds has only +Inf")
    func noBounds() {
        let registry = MetricsRegistry(prefix: "")
        registry.histogram("h", help: "h", buckets: []).observe(2)
        #expect(text(of: registry).contains("h_bucket{le=\"+Inf\"} 1\nh_sum 2\nh_count 1\n"))
    }
}
