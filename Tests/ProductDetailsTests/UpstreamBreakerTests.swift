@testable import ProductDetails
import TestSupport
import Testing
import Timekeeping

@Suite("Upstream breakers")
struct UpstreamBreakerTests {
    static let policy = CircuitBreaker.Policy(
        failureThreshold: 5, openFor: .seconds(5), failureRatio: 0.5, window: .seconds(10), minimumCalls: 20)

    @Test func halfOfAtLeastTheMinimumCallsInTheWindowOpensIt() {
        var breaker = CircuitBreaker(policy: Self.policy)
        // Every other call fails: never five in a row, yet half broken.
        for index in 0..<19 {
            #expect(breaker.record(success: index % 2 == 1, now: .milliseconds(index * 100)) == nil)
        }
        #expect(breaker.state == .closed, "19 calls are fewer than the minimum")
        #expect(breaker.record(success: false, now: .seconds(2)) == .open)
        #expect(breaker.remainingOpenTime(now: .seconds(3)) == .seconds(4))
    }

    @Test func failuresOutsideTheWindowDoNotCount() {
        var breaker = CircuitBreaker(policy: Self.policy)
        for index in 0..<10 { _ = breaker.record(success: index % 2 == 1, now: .zero) }
        // Eleven seconds later the first ten have slid out: ten new ones of which a third fail.
        for index in 0..<10 { _ = breaker.record(success: index % 3 != 0, now: .seconds(11)) }
        #expect(breaker.state == .closed)
    }

    @Test func aLowFailureShareNeverOpensIt() {
        var breaker = CircuitBreaker(policy: Self.policy)
        for index in 0..<200 { _ = breaker.record(success: index % 3 != 0, now: .milliseconds(index)) }
        #expect(breaker.state == .closed)
    }

    @Test func consecutiveFailuresOpenItBeforeTheMinimumCalls() {
        var breaker = CircuitBreaker(policy: Self.policy)
        for _ in 0..<4 { #expect(breaker.record(success: false, now: .zero) == nil) }
        #expect(breaker.record(success: false, now: .zero) == .open)
    }

    @Test func aLateSuccessWhileOpenDoesNotCloseIt() {
        var breaker = CircuitBreaker(policy: Self.policy)
        for _ in 0..<5 { _ = breaker.record(success: false, now: .zero) }
        #expect(breaker.record(success: true, now: .seconds(1)) == nil)
        #expect(breaker.state == .open)
        #expect(breaker.admit(now: .seconds(1)).admitted == false)
    }

    @Test func theTrialClosesItWithAFreshWindow() {
        var breaker = CircuitBreaker(policy: Self.policy)
        for index in 0..<20 { _ = breaker.record(success: index % 2 == 0, now: .zero) }
        #expect(breaker.state == .open)
        #expect(breaker.admit(now: .seconds(5)) == (true, .halfOpen))
        #expect(breaker.admit(now: .seconds(5)).admitted == false, "one trial; the others are treated as open")
        #expect(breaker.remainingOpenTime(now: .seconds(5)) == .zero)
        #expect(breaker.record(success: true, now: .seconds(5)) == .closed)
        // The failures before it opened are forgotten: one more does not reopen it.
        #expect(breaker.record(success: false, now: .seconds(5)) == nil)
    }

    @Test func whatCountsAsAFailure() {
        let failures: [UpstreamFailure] = [
            .timedOut, .connectionReset, .connectFailed, .hostNotFound, .status(500, retryAfter: nil), .status(503, retryAfter: nil),
            .status(429, retryAfter: nil), .malformedBody("x"),
        ]
        for failure in failures { #expect(UpstreamBreaker.verdict(for: failure) == .failure, "\(failure)") }
        for answer: UpstreamFailure in [.notFound, .status(400, retryAfter: nil), .status(410, retryAfter: nil)] {
            #expect(UpstreamBreaker.verdict(for: answer) == .success, "\(answer)")
        }
        #expect(UpstreamBreaker.verdict(for: nil) == .success)
        #expect(UpstreamBreaker.verdict(for: .cancelled) == .nothing)
        #expect(UpstreamBreaker.verdict(for: .circuitOpen) == .nothing)
    }

    @Test func retryAfterIsTheRemainingOpenTimeRoundedUpToAtLeastOneSecond() {
        func seconds(_ duration: Duration) -> Int? {
            ProductDetailsError.upstreamUnavailable(.products, retryAfter: duration).retryAfterSeconds
        }
        #expect(seconds(.milliseconds(4_001)) == 5)
        #expect(seconds(.seconds(4)) == 4)
        #expect(seconds(.milliseconds(1)) == 1)
        #expect(seconds(.zero) == 1)
        #expect(ProductDetailsError.overloaded().retryAfterSeconds == 1)
    }

    // MARK: In the retry loop

    let time = ManualTimeSource()
    let events = RecordingEvents()

    func retrier(_ breaker: UpstreamBreaker) -> Retrier {
        Retrier(
            policy: RetryPolicy(attempts: 3, baseDelay: .zero), budget: RetryBudget(time: time), breaker: breaker,
            time: time, random: { $0.lowerBound }, events: events)
    }

    func call(_ retrier: Retrier, answering script: @escaping @Sendable (Int) -> Result<Int, UpstreamFailure>) async -> (Result<Int, UpstreamFailure>, Int) {
        let calls = Recorder<Int>()
        do throws(UpstreamFailure) {
            let value = try await retrier.run(.reviews, deadline: time.now + .seconds(3), requestID: "r") { _ throws(UpstreamFailure) in
                calls.append(1)
                return try script(calls.values.count).get()
            }
            return (.success(value), calls.values.count)
        } catch {
            return (.failure(error), calls.values.count)
        }
    }

    @Test func anOpenBreakerFailsTheCallAtOnceWithoutAsking() async {
        let breaker = UpstreamBreaker(upstream: .reviews, policy: Self.policy, time: time, events: events)
        let retrier = retrier(breaker)
        // Retries count: three attempts of one call, then two of the next, open it.
        let first = await call(retrier) { _ in .failure(.timedOut) }
        #expect(first.0 == .failure(.timedOut) && first.1 == 3)
        let second = await call(retrier) { _ in .failure(.timedOut) }
        #expect(second.1 == 2, "the retry after the fifth failure is refused")
        #expect(second.0 == .failure(.timedOut))
        #expect(breaker.state == .open)
        let refused = await call(retrier) { _ in .success(1) }
        #expect(refused.0 == .failure(.circuitOpen) && refused.1 == 0)
        #expect(events.all.contains("breaker reviews open"))
        #expect(breaker.retryAfter == .seconds(5))
    }

    @Test func onlyTheTrialGoesOutWhenHalfOpenAndItsSuccessClosesTheBreaker() async {
        let breaker = UpstreamBreaker(upstream: .reviews, policy: Self.policy, time: time, events: events)
        for _ in 0..<5 { _ = breaker.admit(); breaker.record(.status(502, retryAfter: nil)) }
        time.advance(by: .seconds(5))
        let trial = await call(retrier(breaker)) { _ in .success(7) }
        #expect(trial.0 == .success(7) && trial.1 == 1)
        #expect(breaker.state == .closed)
        #expect(events.all.suffix(3) == ["breaker reviews half_open", "attempt reviews success", "breaker reviews closed"])
    }

    @Test func whileTheTrialIsOutOtherCallsAreRefused() async {
        let breaker = UpstreamBreaker(upstream: .reviews, policy: Self.policy, time: time, events: events)
        for _ in 0..<5 { _ = breaker.admit(); breaker.record(.timedOut) }
        time.advance(by: .seconds(5))
        let gate = CancellableGate()
        let retrier = retrier(breaker)
        let trial = Task {
            do throws(UpstreamFailure) {
                return try await retrier.run(.reviews, deadline: time.now + .seconds(3), requestID: "r") { _ throws(UpstreamFailure) in
                    do { try await gate.wait() } catch { throw .cancelled }
                    return 1
                }
            } catch {
                return -1
            }
        }
        await gate.waitForWaiters()
        let other = await call(retrier) { _ in .success(2) }
        #expect(other.0 == .failure(.circuitOpen) && other.1 == 0)
        gate.open()
        #expect(await trial.value == 1)
        #expect(breaker.state == .closed)
    }

    @Test func aCancelledTrialLetsTheNextCallBeTheTrial() async {
        let breaker = UpstreamBreaker(upstream: .reviews, policy: Self.policy, time: time, events: events)
        for _ in 0..<5 { _ = breaker.admit(); breaker.record(.timedOut) }
        time.advance(by: .seconds(5))
        #expect(breaker.admit())
        breaker.record(.cancelled)
        #expect(breaker.state == .halfOpen)
        #expect(breaker.admit())
    }
}
