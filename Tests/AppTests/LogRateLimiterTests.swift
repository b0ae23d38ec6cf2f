@testable import Logging
@testable import App
import Testing

@Suite struct LogRateLimiterTests {
    @Test func letsALimitThroughPerSecondThenSaysHowManyWereHeldBack() {
        let limiter = LogRateLimiter(linesPerSecond: 3)
        let start = Duration.seconds(100)
        #expect((0..<3).map { _ in limiter.admit(now: start) } == [0, 0, 0])
        #expect(limiter.admit(now: start + .milliseconds(500)) == nil)
        #expect(limiter.admit(now: start + .milliseconds(900)) == nil)
        #expect(limiter.admit(now: start + .seconds(1)) == 2)
        #expect(limiter.admit(now: start + .seconds(1)) == 0)
    }
}
