import Testing
@testable import ProductDetails

struct RetryPolicyTests {
    let policy = RetryPolicy()  // 3 attempts, 50 ms base, 1 s cap, 1 s per attempt
    let maxJitter: (ClosedRange<Double>) -> Double = { $0.upperBound }
    let minJitter: (ClosedRange<Double>) -> Double = { $0.lowerBound }

    @Test func backoffCeilingDoublesUpToTheCap() {
        let policy = RetryPolicy(attempts: 10, baseDelay: .milliseconds(50), maxDelay: .seconds(1))
        #expect(policy.backoffCeiling(afterAttempt: 1) == .milliseconds(50))
        #expect(policy.backoffCeiling(afterAttempt: 2) == .milliseconds(100))
        #expect(policy.backoffCeiling(afterAttempt: 5) == .milliseconds(800))
        #expect(policy.backoffCeiling(afterAttempt: 6) == .seconds(1))
        #expect(policy.backoffCeiling(afterAttempt: 1_000) == .seconds(1))
    }

    @Test func fullJitterDrawsFromZeroToTheCeiling() {
        let ranges = Recorder<ClosedRange<Double>>()
        let step = policy.nextStep(after: .connectFailed, attempt: 2, now: .zero, deadline: .seconds(3)) { range in
            ranges.append(range)
            return range.upperBound
        }
        #expect(ranges.values == [0...0.1])
        #expect(step == .retry(after: .milliseconds(100)))
        #expect(policy.nextStep(after: .connectFailed, attempt: 2, now: .zero, deadline: .seconds(3), random: minJitter) == .retry(after: .zero))
    }

    @Test func aRandomSourceOutOfRangeIsClamped() {
        let step = policy.nextStep(after: .timedOut, attempt: 1, now: .zero, deadline: .seconds(3)) { _ in 99 }
        #expect(step == .retry(after: .milliseconds(50)))
    }

    @Test(arguments: [
        UpstreamFailure.connectFailed, .connectionReset, .timedOut,
        .status(429, retryAfter: nil), .status(500, retryAfter: nil), .status(502, retryAfter: nil),
        .status(503, retryAfter: nil), .status(504, retryAfter: nil),
    ])
    func transientFailuresRetry(failure: UpstreamFailure) {
        #expect(failure.isRetryable)
        #expect(policy.nextStep(after: failure, attempt: 1, now: .zero, deadline: .seconds(3), random: maxJitter) == .retry(after: .milliseconds(50)))
    }

    @Test(arguments: [
        UpstreamFailure.notFound, .malformedBody("x"), .cancelled,
        .status(400, retryAfter: nil), .status(401, retryAfter: nil), .status(501, retryAfter: nil), .status(505, retryAfter: nil),
    ])
    func answersAndCancellationNeverRetry(failure: UpstreamFailure) {
        #expect(!failure.isRetryable)
        #expect(policy.nextStep(after: failure, attempt: 1, now: .zero, deadline: .seconds(3), random: maxJitter) == .giveUp(.notRetryable))
    }

    @Test func stopsAfterTheLastAttempt() {
        #expect(policy.nextStep(after: .timedOut, attempt: 3, now: .zero, deadline: .seconds(3), random: maxJitter) == .giveUp(.attemptsExhausted))
    }

    @Test func retryAfterIsAFloorOnTheDelay() {
        let failure = UpstreamFailure.status(503, retryAfter: .milliseconds(700))
        #expect(policy.nextStep(after: failure, attempt: 1, now: .zero, deadline: .seconds(3), random: maxJitter) == .retry(after: .milliseconds(700)))
        let short = UpstreamFailure.status(429, retryAfter: .milliseconds(10))
        #expect(policy.nextStep(after: short, attempt: 1, now: .zero, deadline: .seconds(3), random: maxJitter) == .retry(after: .milliseconds(50)))
    }

    @Test func retryAfterBeyondTheCapGivesUp() {
        let atCap = UpstreamFailure.status(503, retryAfter: .seconds(1))
        #expect(policy.nextStep(after: atCap, attempt: 1, now: .zero, deadline: .seconds(3), random: minJitter) == .retry(after: .seconds(1)))
        let beyond = UpstreamFailure.status(503, retryAfter: .seconds(2))
        #expect(policy.nextStep(after: beyond, attempt: 1, now: .zero, deadline: .seconds(30), random: minJitter) == .giveUp(.retryAfterTooLong))
    }

    @Test func neverSchedulesAnAttemptAtOrPastTheDeadline() {
        #expect(policy.nextStep(after: .timedOut, attempt: 1, now: .milliseconds(950), deadline: .seconds(1), random: maxJitter) == .giveUp(.deadline))
        #expect(policy.nextStep(after: .timedOut, attempt: 1, now: .milliseconds(949), deadline: .seconds(1), random: maxJitter) == .retry(after: .milliseconds(50)))
        let retryAfter = UpstreamFailure.status(503, retryAfter: .milliseconds(500))
        #expect(policy.nextStep(after: retryAfter, attempt: 1, now: .milliseconds(600), deadline: .seconds(1), random: minJitter) == .giveUp(.deadline))
    }

    @Test func attemptTimeoutShrinksToTheRemainingDeadline() {
        #expect(policy.attemptTimeout(now: .zero, deadline: .seconds(3)) == .seconds(1))
        #expect(policy.attemptTimeout(now: .milliseconds(2_700), deadline: .seconds(3)) == .milliseconds(300))
    }
}
