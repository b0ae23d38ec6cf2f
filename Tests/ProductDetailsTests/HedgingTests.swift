@testable import ProductDetails
import PureTestSupport
import Synchronization
import TestSupport
import Testing
import Timekeeping

@Suite("Hedging")
struct HedgingTests {
    @Test func p95IsTheNearestRankOverTheLastSamples() {
        var window = LatencyWindow(capacity: 100, recomputeEvery: 1)
        #expect(window.p95 == nil)
        for millisecond in 1...100 { window.record(.milliseconds(millisecond)) }
        #expect(window.p95 == .milliseconds(95))
        // The ring keeps the last 100: fifty fast ones push the slow half out of the top.
        for _ in 0..<50 { window.record(.milliseconds(1)) }
        #expect(window.p95 == .milliseconds(95))
        for _ in 0..<50 { window.record(.milliseconds(1)) }
        #expect(window.p95 == .milliseconds(1), "every slow sample has left the window")
    }

    /// The percentile is selected in place, not sorted: any order of samples, with repeats, must
    /// give the sorted nearest rank.
    @Test func theSelectedPercentileIsTheSortedNearestRank() {
        var random = SeededRandom(seed: 27)
        for capacity in [1, 2, 3, 7, 20, 128] {
            var window = LatencyWindow(capacity: capacity, recomputeEvery: 1)
            var held: [Int] = []
            for _ in 0..<(capacity * 3) {
                // A few distinct values, so that runs of equal samples are common.
                let millisecond = Int.random(in: 0...(capacity / 2 + 1), using: &random)
                window.record(.milliseconds(millisecond))
                held.append(millisecond)
                if held.count > capacity { held.removeFirst() }
                let sorted = held.sorted()
                let rank = (95 * sorted.count + 99) / 100
                #expect(window.p95 == .milliseconds(sorted[rank - 1]), "capacity \(capacity), samples \(held)")
            }
        }
    }

    @Test func thePercentileIsRecomputedEveryFewSamplesNotOnEachRead() {
        var window = LatencyWindow(capacity: 10, recomputeEvery: 4)
        window.record(.milliseconds(5))
        #expect(window.p95 == .milliseconds(5), "the first sample gives a value at once")
        for _ in 0..<3 { window.record(.milliseconds(50)) }
        #expect(window.p95 == .milliseconds(5), "not yet recomputed")
        window.record(.milliseconds(900))
        #expect(window.p95 == .milliseconds(900), "recomputed on the fourth new sample")
    }

    @Test func theDelayIsTheCeilingUntilTheMinimumSamplesAndThenStaysBetweenFloorAndCeiling() {
        let policy = HedgePolicy(minimumSamples: 20, minimumDelay: .milliseconds(10), maximumDelay: .milliseconds(200))
        #expect(policy.delay(p95: nil, samples: 0) == .milliseconds(200))
        #expect(policy.delay(p95: .milliseconds(50), samples: 19) == .milliseconds(200))
        #expect(policy.delay(p95: .milliseconds(50), samples: 20) == .milliseconds(50))
        #expect(policy.delay(p95: .milliseconds(2), samples: 20) == .milliseconds(10))
        #expect(policy.delay(p95: .seconds(2), samples: 20) == .milliseconds(200))
    }

    @Test func theBudgetHasAFloorAndThenAShareOfCalls() {
        let time = ManualTimeSource()
        let hedger = Hedger(policy: HedgePolicy(budget: .init(window: .seconds(10), bucketCount: 10, ratio: 0.1, floor: 2)), time: time)
        #expect(hedger.tryWithdrawHedge() && hedger.tryWithdrawHedge(), "the floor lets the first hedges of a quiet run go")
        #expect(!hedger.tryWithdrawHedge())
        for _ in 0..<10 { hedger.recordCall(at: time.now) }
        #expect(hedger.tryWithdrawHedge(), "one more for ten calls")
        #expect(!hedger.tryWithdrawHedge())
        time.advance(by: .seconds(11))
        #expect(hedger.tryWithdrawHedge(), "the window slid on")
    }

    // MARK: In the retry loop

    let time = ManualTimeSource()
    let events = RecordingEvents()

    /// A hedger that has seen 20 answers of 5 ms (its delay is the 10 ms floor), its first call
    /// ten seconds ago and, unless `armed` is false, one slow attempt lately.
    func warmHedger(budgetFloor: Int = 10, armed: Bool = true) -> Hedger {
        let hedger = Hedger(
            policy: HedgePolicy(budget: .init(window: .seconds(10), bucketCount: 10, ratio: 0.1, floor: budgetFloor)), time: time)
        for _ in 0..<20 { hedger.recordSuccess(after: .milliseconds(5)) }
        // Its first call was ten seconds ago: past the arming that follows a start.
        hedger.recordCall(at: time.now - .seconds(10))
        if armed { hedger.recordSlow() }
        return hedger
    }

    @Test func hedgingIsArmedBySlowAttemptsAndDisarmsWhenTheyStop() async {
        let hedger = warmHedger(armed: false)
        #expect(hedger.delay(at: time.now).delay == .milliseconds(10) && !hedger.delay(at: time.now).armed)
        // An attempt that takes the hedge delay arms it, for ten seconds.
        let (task, hang, calls) = start(retrier(hedger)) { $0 == 1 ? nil : .success(2) }
        await hang.waitForWaiters()
        #expect(time.sleeperCount == 0 && time.scheduledCount == 0, "not armed: no race, no timer")
        time.advance(by: .milliseconds(10))
        hang.open()
        #expect(await task.value == .success(-1))
        #expect(calls.values.count == 1)
        #expect(hedger.delay(at: time.now).armed)
        time.advance(by: .seconds(11))
        #expect(!hedger.delay(at: time.now).armed)
    }

    /// While the caller's own loop is saturated its slow attempts are its own queue's: they do
    /// not arm hedging, an armed hedger races nothing, and once the load eases it hedges again.
    @Test func aSaturatedCallerNeitherArmsNorRaces() async {
        let load = SettableLoad(saturated: true)
        let hedger = Hedger(policy: HedgePolicy(), time: time, load: load)
        for _ in 0..<20 { hedger.recordSuccess(after: .milliseconds(5)) }
        hedger.recordSlow()
        #expect(!hedger.delay(at: time.now).armed, "a slow attempt while saturated does not arm")
        load.saturated = false
        hedger.recordSlow()
        #expect(hedger.delay(at: time.now).armed)
        load.saturated = true
        #expect(!hedger.delay(at: time.now).armed, "armed, but not while saturated")
        let (task, hang, calls) = start(retrier(hedger)) { $0 == 1 ? nil : .success(2) }
        await hang.waitForWaiters()
        #expect(time.sleeperCount == 0 && time.scheduledCount == 0, "saturated: no race, no timer")
        hang.open()
        #expect(await task.value == .success(-1))
        #expect(calls.values.count == 1)
        load.saturated = false
        #expect(hedger.delay(at: time.now).armed, "hedging again once the load eases")
    }

    final class SettableLoad: LocalLoad {
        private let value: Atomic<Bool>
        init(saturated: Bool) { value = Atomic(saturated) }
        var saturated: Bool {
            get { value.load(ordering: .relaxed) }
            set { value.store(newValue, ordering: .relaxed) }
        }
        var isSaturated: Bool { saturated }
    }

    func retrier(_ hedger: Hedger, breaker: UpstreamBreaker? = nil) -> Retrier {
        Retrier(
            policy: RetryPolicy(attempts: 1), budget: RetryBudget(time: time), breaker: breaker, hedger: hedger,
            time: time, random: { $0.lowerBound }, events: events)
    }

    /// Runs a call whose attempts follow `script` by attempt number: `nil` hangs until cancelled.
    func start(_ retrier: Retrier, _ script: @escaping @Sendable (Int) -> Result<Int, UpstreamFailure>?) -> (Task<Result<Int, UpstreamFailure>, Never>, CancellableGate, Recorder<Int>) {
        let hang = CancellableGate()
        let calls = Recorder<Int>()
        let task = Task { () -> Result<Int, UpstreamFailure> in
            do throws(UpstreamFailure) {
                return .success(try await retrier.run(.products, deadline: time.now + .seconds(3), requestID: "r") { _ throws(UpstreamFailure) in
                    calls.append(1)
                    guard let answer = script(calls.values.count) else {
                        do { try await hang.wait() } catch { throw .cancelled }
                        return -1
                    }
                    return try answer.get()
                })
            } catch {
                return .failure(error)
            }
        }
        return (task, hang, calls)
    }

    @Test func aSlowFirstAttemptGetsAHedgeAfterTheDelayAndTheHedgeWins() async {
        let (task, hang, calls) = start(retrier(warmHedger())) { $0 == 1 ? nil : .success(2) }
        await hang.waitForWaiters()
        await eventually { time.scheduledCount == 1 }
        time.advance(by: .milliseconds(9))
        #expect(calls.values.count == 1, "no hedge before the delay")
        time.advance(by: .milliseconds(1))
        #expect(await task.value == .success(2))
        #expect(calls.values.count == 2)
        #expect(events.all.contains("hedge products sent") && events.all.contains("hedge products won"))
        await eventually { hang.waiterCount == 0 }
        #expect(events.all.contains("attempt products cancelled"), "the loser was cancelled")
    }

    /// Right after a start no sample is known and no slow call was seen: the first call is
    /// hedged all the same, after the ceiling.
    @Test func theFirstCallAfterAStartIsHedgedAfterTheCeiling() async {
        let hedger = Hedger(policy: HedgePolicy(minimumSamples: 20, maximumDelay: .milliseconds(200)), time: time)
        #expect(hedger.delay(at: time.now) == (.milliseconds(200), true))
        let (task, hang, calls) = start(retrier(hedger)) { $0 == 1 ? nil : .success(2) }
        await hang.waitForWaiters()
        await eventually { time.scheduledCount == 1 }
        time.advance(by: .milliseconds(199))
        #expect(calls.values.count == 1, "no hedge before the ceiling")
        time.advance(by: .milliseconds(1))
        #expect(await task.value == .success(2))
        #expect(calls.values.count == 2)
        #expect(events.all.contains("hedge products sent"))
    }

    @Test func onceTheSamplesAreKnownAndTheFirstSecondsPassedAnUpstreamWithNoTailIsNotArmed() {
        let hedger = Hedger(policy: HedgePolicy(minimumSamples: 20, armedFor: .seconds(10)), time: time)
        hedger.recordCall(at: time.now)
        for _ in 0..<19 { hedger.recordSuccess(after: .milliseconds(5)) }
        #expect(hedger.delay(at: time.now).armed, "still learning")
        hedger.recordSuccess(after: .milliseconds(5))
        #expect(hedger.delay(at: time.now).armed, "armed for ten seconds after the first call")
        time.advance(by: .seconds(10))
        #expect(!hedger.delay(at: time.now).armed)
    }

    @Test func aFastAnswerNeedsNoHedge() async {
        let (task, _, calls) = start(retrier(warmHedger())) { _ in .success(1) }
        #expect(await task.value == .success(1))
        #expect(calls.values.count == 1)
        #expect(!events.all.contains { $0.hasPrefix("hedge") })
    }

    @Test func theFirstAttemptCanStillWinAfterTheHedgeWentOut() async {
        let gate = CancellableGate()
        let retrier = retrier(warmHedger())
        let calls = Recorder<Int>()
        let task = Task {
            do throws(UpstreamFailure) {
                return try await retrier.run(.products, deadline: time.now + .seconds(3), requestID: "r") { _ throws(UpstreamFailure) in
                    calls.append(1)
                    let number = calls.values.count
                    do { try await gate.wait() } catch { throw .cancelled }
                    return number
                }
            } catch {
                return -1
            }
        }
        await gate.waitForWaiters(1)
        await eventually { time.scheduledCount == 1 }
        time.advance(by: .milliseconds(10))
        await gate.waitForWaiters(2)
        gate.open()
        let winner = await task.value
        #expect(winner == 1 || winner == 2)
        #expect(events.all.filter { $0.hasPrefix("hedge") }.count == 2)
        #expect(events.count("hedge products sent") == 1)
    }

    @Test func aSpentBudgetRefusesTheHedge() async {
        let (task, hang, calls) = start(retrier(warmHedger(budgetFloor: 0))) { $0 == 1 ? nil : .success(2) }
        await hang.waitForWaiters()
        await eventually { time.scheduledCount == 1 }
        time.advance(by: .milliseconds(10))
        await eventually { events.count("hedge products refused") == 1 }
        #expect(calls.values.count == 1)
        hang.open()
        #expect(await task.value == .success(-1))
    }

    @Test func noHedgeUnlessTheBreakerIsClosed() async {
        let breaker = UpstreamBreaker(upstream: .products, policy: ServiceSettings.defaultUpstreamBreaker, time: time, events: events)
        for _ in 0..<5 { _ = breaker.admit(); breaker.record(.timedOut) }
        time.advance(by: .seconds(5))
        // This call is the half-open breaker's trial: it is not hedged.
        let (task, hang, calls) = start(retrier(warmHedger(), breaker: breaker)) { $0 == 1 ? nil : .success(2) }
        await hang.waitForWaiters()
        await eventually { time.scheduledCount == 1 }
        time.advance(by: .milliseconds(10))
        await eventually { events.count("hedge products refused") == 1 }
        #expect(calls.values.count == 1)
        hang.open()
        #expect(await task.value == .success(-1))
        #expect(breaker.state == .closed)
    }

    @Test func aNotFoundIsAnAnswerThatEndsTheRace() async {
        let (task, hang, _) = start(retrier(warmHedger())) { $0 == 1 ? nil : .failure(.notFound) }
        await hang.waitForWaiters()
        await eventually { time.scheduledCount == 1 }
        time.advance(by: .milliseconds(10))
        #expect(await task.value == .failure(.notFound))
    }

    @Test func aFailedHedgeWaitsForTheFirstAttempt() async {
        let (task, hang, _) = start(retrier(warmHedger())) { $0 == 1 ? nil : .failure(.status(503, retryAfter: nil)) }
        await hang.waitForWaiters()
        await eventually { time.scheduledCount == 1 }
        time.advance(by: .milliseconds(10))
        await eventually { events.all.contains("attempt products status_5xx") }
        hang.open()
        #expect(await task.value == .success(-1))
        #expect(events.all.contains("hedge products lost"))
    }
}
