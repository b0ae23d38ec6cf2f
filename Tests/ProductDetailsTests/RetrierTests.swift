@testable import ProductDetails
import TestSupport
import Testing
import Timekeeping

struct RetrierTests {
    let time = SkippingTimeSource()
    let events = RecordingEvents()

    func retrier(
        policy: RetryPolicy = RetryPolicy(),
        budget limits: RetryBudgetWindow.Limits = .init(),
        random: @escaping @Sendable (ClosedRange<Double>) -> Double = { $0.upperBound }
    ) -> Retrier {
        Retrier(policy: policy, budget: RetryBudget(limits: limits, time: time), time: time, random: random, events: events)
    }

    /// Runs `retrier` against a script of answers, one per attempt; returns the outcome and the calls.
    func run(
        _ retrier: Retrier,
        deadline: Duration = .seconds(3),
        script: [Result<Int, UpstreamFailure>],
        eachAttemptTakes cost: Duration = .zero
    ) async -> (Result<Int, UpstreamFailure>, [UpstreamCall]) {
        let calls = Recorder<UpstreamCall>()
        let result: Result<Int, UpstreamFailure>
        do throws(UpstreamFailure) {
            result = .success(try await retrier.run(.reviews, deadline: deadline, requestID: "req-1") { call throws(UpstreamFailure) in
                calls.append(call)
                time.advance(by: min(cost, call.timeout))
                let index = min(calls.values.count, script.count) - 1
                return try script[index].get()
            })
        } catch {
            result = .failure(error)
        }
        return (result, calls.values)
    }

    @Test func firstSuccessMakesOneCallWithTheAttemptTimeoutAndRequestID() async {
        let (result, calls) = await run(retrier(), script: [.success(7)])
        #expect(result == .success(7))
        #expect(calls == [UpstreamCall(timeout: .seconds(1), requestID: "req-1")])
        #expect(time.sleeps.isEmpty)
        #expect(events.all == ["attempt reviews success"])
    }

    @Test func transientFailuresAreRetriedWithExponentialCeilings() async {
        let (result, calls) = await run(retrier(), script: [.failure(.connectFailed), .failure(.status(503, retryAfter: nil)), .success(1)])
        #expect(result == .success(1))
        #expect(calls.count == 3)
        #expect(time.sleeps == [.milliseconds(50), .milliseconds(100)])
        #expect(events.all == [
            "attempt reviews connect_failed", "retry reviews connect_failed",
            "attempt reviews status_5xx", "retry reviews status_5xx",
            "attempt reviews success",
        ])
    }

    @Test func jitterAtItsMinimumRetriesWithoutWaiting() async {
        let (result, _) = await run(retrier(random: { $0.lowerBound }), script: [.failure(.timedOut), .success(2)])
        #expect(result == .success(2))
        #expect(time.sleeps == [.zero])
    }

    @Test func givesUpWithTheLastFailureAfterAllAttempts() async {
        let (result, calls) = await run(retrier(), script: [.failure(.connectFailed), .failure(.connectionReset), .failure(.timedOut)])
        #expect(result == .failure(.timedOut))
        #expect(calls.count == 3)
        // Reported once, with the last cause, for the fault log.
        #expect(events.all.filter { $0.hasPrefix("gaveUp") } == ["gaveUp reviews timed_out after 3"])
    }

    /// A 404 is an answer, and a cancelled call has nobody to tell: neither is a failure to log.
    @Test func notFoundAndCancelledAreNotReportedAsGivingUp() async {
        _ = await run(retrier(), script: [.failure(.notFound)])
        _ = await run(retrier(), script: [.failure(.cancelled)])
        _ = await run(retrier(), script: [.failure(.malformedBody("x"))])
        #expect(events.all.filter { $0.hasPrefix("gaveUp") } == ["gaveUp reviews malformed_body after 1"])
    }

    @Test func aRetryTheBudgetRefusesIsReportedAsGivingUp() async {
        let retrier = retrier(budget: .init(ratio: 0, floor: 0))
        let (result, _) = await run(retrier, script: [.failure(.hostNotFound), .success(1)])
        #expect(result == .failure(.hostNotFound))
        #expect(events.all.filter { $0.hasPrefix("gaveUp") } == ["gaveUp reviews dns_failed after 1"])
    }

    @Test(arguments: [UpstreamFailure.notFound, .malformedBody("bad"), .status(404, retryAfter: nil), .status(400, retryAfter: nil)])
    func answersAreNotRetried(failure: UpstreamFailure) async {
        let (result, calls) = await run(retrier(), script: [.failure(failure), .success(1)])
        #expect(result == .failure(failure))
        #expect(calls.count == 1)
        #expect(time.sleeps.isEmpty)
    }

    @Test func retryAfterIsHonoured() async {
        let (result, _) = await run(retrier(), script: [.failure(.status(429, retryAfter: .milliseconds(800))), .success(1)])
        #expect(result == .success(1))
        #expect(time.sleeps == [.milliseconds(800)])
    }

    @Test func retryAfterBeyondTheCapFailsInsteadOfWaiting() async {
        let failure = UpstreamFailure.status(503, retryAfter: .seconds(30))
        let (result, calls) = await run(retrier(), script: [.failure(failure), .success(1)])
        #expect(result == .failure(failure))
        #expect(calls.count == 1)
        #expect(time.sleeps.isEmpty)
    }

    @Test func neverSleepsPastTheDeadlineAndShrinksTheLastAttemptTimeout() async {
        // Attempt 1: 0–50 ms, backoff 50 ms; attempt 2 starts at 100 ms with 20 ms left and ends at
        // the deadline; the next backoff would pass it, so the retrier gives up.
        let (result, calls) = await run(
            retrier(policy: RetryPolicy(attempts: 5)), deadline: .milliseconds(120),
            script: [.failure(.timedOut), .failure(.timedOut), .success(1)], eachAttemptTakes: .milliseconds(50)
        )
        #expect(result == .failure(.timedOut))
        #expect(calls.map(\.timeout) == [.milliseconds(120), .milliseconds(20)])
        #expect(time.sleeps == [.milliseconds(50)])
        #expect(time.now == .milliseconds(120))
    }

    @Test func aLateTimerThatPassesTheDeadlineEndsWithTheLastFailure() async {
        time.oversleep(by: .seconds(5))
        let (result, calls) = await run(retrier(), deadline: .seconds(3), script: [.failure(.connectionReset), .success(1)])
        #expect(result == .failure(.connectionReset))
        #expect(calls.count == 1)
    }

    @Test func aDeadlineAlreadyPassedMakesNoCall() async {
        time.advance(by: .seconds(5))
        let (result, calls) = await run(retrier(), deadline: .seconds(3), script: [.success(1)])
        #expect(result == .failure(.timedOut))
        #expect(calls.isEmpty)
    }

    @Test func anExhaustedBudgetStopsRetryingAndIsReported() async {
        let retrier = retrier(budget: .init(ratio: 0, floor: 1))
        let (first, firstCalls) = await run(retrier, script: [.failure(.connectFailed), .failure(.connectFailed), .success(1)])
        #expect(first == .failure(.connectFailed))
        #expect(firstCalls.count == 2)
        #expect(events.count("budgetExhausted reviews") == 1)
        let (second, secondCalls) = await run(retrier, script: [.failure(.connectionReset), .success(1)])
        #expect(second == .failure(.connectionReset))
        #expect(secondCalls.count == 1)
        #expect(events.count("budgetExhausted reviews") == 2)
    }

    @Test func theBudgetRatioGrowsWithRequests() async {
        let retrier = retrier(budget: .init(ratio: 0.5, floor: 0))
        // One request allows 0.5 retries: refused. Two requests allow one.
        let (first, _) = await run(retrier, script: [.failure(.timedOut), .success(1)])
        #expect(first == .failure(.timedOut))
        let (second, _) = await run(retrier, script: [.failure(.timedOut), .success(2)])
        #expect(second == .success(2))
    }

    @Test func cancellationDuringBackoffStopsAtOnceWithNoMoreAttempts() async {
        let time = ManualTimeSource()
        let retrier = Retrier(budget: RetryBudget(time: time), time: time, random: { $0.upperBound })
        let attempts = Recorder<Int>()
        let task = Task { () async -> Result<Int, UpstreamFailure> in
            do throws(UpstreamFailure) {
                return .success(try await retrier.run(.products, deadline: .seconds(3), requestID: "") { _ throws(UpstreamFailure) -> Int in
                    attempts.append(1)
                    throw .connectFailed
                })
            } catch {
                return .failure(error)
            }
        }
        #expect(await time.waitForSleepers(1))
        task.cancel()
        #expect(await task.value == .failure(.cancelled))
        time.advance(by: .seconds(5))
        #expect(attempts.values.count == 1)
    }

    @Test func cancellationDuringAnAttemptIsReportedAsCancelledWhateverTheOperationThrew() async {
        let gate = CancellableGate()
        let attempts = Recorder<Int>()
        let retrier = retrier()
        let task = Task { () async -> Result<Int, UpstreamFailure> in
            do throws(UpstreamFailure) {
                return .success(try await retrier.run(.products, deadline: .seconds(3), requestID: "") { _ throws(UpstreamFailure) -> Int in
                    attempts.append(1)
                    do { try await gate.wait() } catch { throw .connectionReset }  // a closed socket
                    return 1
                })
            } catch {
                return .failure(error)
            }
        }
        await gate.waitForWaiters(1)
        task.cancel()
        #expect(await task.value == .failure(.cancelled))
        #expect(attempts.values.count == 1)
        #expect(time.sleeps.isEmpty)
    }
}
