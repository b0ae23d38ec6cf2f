import PureTestSupport
import Redis
import Testing

@Suite("Reconnect backoff")
struct ReconnectBackoffTests {
    let backoff = ReconnectBackoff(base: .milliseconds(100), cap: .seconds(1))

    @Test func ceilingDoublesUpToTheCap() {
        let ceilings = (0...6).map { backoff.ceiling(afterFailures: $0) }
        #expect(ceilings == [100, 200, 400, 800, 1000, 1000, 1000].map { .milliseconds($0) })
        #expect(backoff.ceiling(afterFailures: Int.max) == .seconds(1))
    }

    @Test func highestDrawIsTheCeiling() {
        var highest = FixedRandom(value: .max)
        #expect((0...5).map { backoff.delay(afterFailures: $0, using: &highest) }
            == [100, 200, 400, 800, 1000, 1000].map { .milliseconds($0) })
    }

    @Test func seededDrawsStayWithinTheirCeiling() {
        var random = SeededRandom(seed: 42)
        var distinct = Set<Duration>()
        for failures in 0..<200 {
            let delay = backoff.delay(afterFailures: failures % 8, using: &random)
            #expect(delay >= .zero && delay <= backoff.ceiling(afterFailures: failures % 8))
            distinct.insert(delay)
        }
        // Jitter, not a ladder: the draws differ.
        #expect(distinct.count > 150)
    }
}
