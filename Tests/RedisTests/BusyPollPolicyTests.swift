@testable import Redis
import Testing

@Suite("Busy poll policy")
struct BusyPollPolicyTests {
    static func us(_ value: Int) -> Duration { .microseconds(value) }

    /// Runs a lone command whose reply comes after `roundTrip`; returns whether it was polled for.
    static func lone(_ policy: inout BusyPollPolicy, _ roundTrip: Duration, at now: inout Duration) -> Bool {
        let polls = policy.flushed(awaiting: 1, now: now)
        now += roundTrip
        policy.received(awaiting: 0, now: now)
        now += us(1_000)
        return polls
    }

    @Test func aLoneCommandPollsAndSeveralInFlightDoNot() {
        var policy = BusyPollPolicy(budget: Self.us(100))
        let polls = [1, 2, 40].map { policy.flushed(awaiting: $0, now: .zero) }
        #expect(polls == [true, false, false])
    }

    @Test func aPolledReplySaysWhetherItCameWithinTheBudgetAndAnUnpolledOneSaysNothing() {
        var policy = BusyPollPolicy(budget: Self.us(100))
        _ = policy.flushed(awaiting: 1, now: .zero)
        let caught = policy.received(awaiting: 0, now: Self.us(40))
        _ = policy.flushed(awaiting: 1, now: Self.us(1_000))
        let ranOut = policy.received(awaiting: 0, now: Self.us(1_300))
        _ = policy.flushed(awaiting: 2, now: Self.us(2_000))
        let several = policy.received(awaiting: 0, now: Self.us(2_050))
        #expect(caught == true)
        #expect(ranOut == false)
        #expect(several == nil)
    }

    @Test func aZeroBudgetNeverPolls() {
        var policy = BusyPollPolicy(budget: .zero)
        var now = Duration.zero
        #expect(!Self.lone(&policy, Self.us(30), at: &now))
    }

    @Test func pollsRunningOutThreeTimesInARowPauseAndEveryThirtySecondLoneCommandProbes() {
        var policy = BusyPollPolicy(budget: Self.us(100))
        var now = Duration.zero
        let first = (0..<3).map { _ in Self.lone(&policy, Self.us(800), at: &now) }
        #expect(first == [true, true, true])
        #expect(policy.isPaused)
        let paused = (1...64).map { _ in Self.lone(&policy, Self.us(800), at: &now) }
        #expect(paused.indices.filter { paused[$0] }.map { $0 + 1 } == [32, 64])
        #expect(policy.isPaused)
    }

    @Test func aQuickReplyEndsThePauseWhetherPolledOrNot() {
        var policy = BusyPollPolicy(budget: Self.us(100))
        var now = Duration.zero
        for _ in 0..<3 { _ = Self.lone(&policy, Self.us(800), at: &now) }
        // Not polled, yet back within the budget: polling would have caught it.
        #expect(!Self.lone(&policy, Self.us(60), at: &now))
        #expect(!policy.isPaused)
        #expect(Self.lone(&policy, Self.us(60), at: &now))
    }

    @Test func onlyRunOutPollsCountAndACaughtOneForgetsThem() {
        var policy = BusyPollPolicy(budget: Self.us(100))
        var now = Duration.zero
        for roundTrip in [800, 800, 40, 800, 800] { _ = Self.lone(&policy, Self.us(roundTrip), at: &now) }
        #expect(policy.missesInARow == 2)
        // A reply while another command is in flight, a second command after a lone one, and a
        // command whose connection closed tell nothing.
        _ = policy.flushed(awaiting: 1, now: now)
        policy.received(awaiting: 1, now: now + Self.us(900))
        _ = policy.flushed(awaiting: 2, now: now + Self.us(1_000))
        policy.received(awaiting: 0, now: now + Self.us(9_000))
        _ = policy.flushed(awaiting: 1, now: now + Self.us(10_000))
        policy.closed()
        policy.received(awaiting: 0, now: now + Self.us(90_000))
        #expect(policy.missesInARow == 2)
        #expect(!policy.isPaused)
    }
}
