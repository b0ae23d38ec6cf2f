@testable import Fleet
@testable import ProductDetails
import Testing

/// The shared-cache phase's rules, stepped by hand: each event with its `now`, each action checked.
@Suite("Shared lookup machine")
struct SharedLookupMachineTests {
    static let settings = SharedCacheSettings(
        timeout: .milliseconds(250), pollInitial: .milliseconds(2), pollMax: .milliseconds(25))
    static let generation = SharedGeneration("g1")
    static let claim = SharedClaim(id: "p1", generation: generation, token: "t1")
    static let document = CachedDocument(status: 200, body: Array("{}".utf8))
    /// Fresh for 60 s, then 30 s stale-while-revalidate; stale-if-error for 300 s.
    static let page = SharedPage(document: document, ttl: .seconds(60), staleIfError: .seconds(300), staleWhileRevalidate: .seconds(30))

    static func machine(deadline: Duration = .seconds(3)) -> SharedLookupMachine {
        SharedLookupMachine(settings: settings, deadline: deadline)
    }

    static func status(_ result: SharedCacheStatus.Result, ttl: Duration? = nil, collapsed: Bool = false) -> SharedCacheStatus {
        SharedCacheStatus(result: result, ttlRemaining: ttl, collapsed: collapsed)
    }

    @Test func aFreshPageAnswersWithTheTTLLeft() {
        var machine = Self.machine()
        #expect(machine.start(now: .zero) == .read(deadline: .milliseconds(250)))
        let read = SharedRead.page(Self.page, age: .seconds(20), generation: Self.generation)
        #expect(machine.readAnswered(read, now: .milliseconds(1))
            == .answerFresh(Self.document, remaining: .seconds(40), status: Self.status(.hit, ttl: .seconds(40))))
    }

    @Test func theLeaseTakenAtOnceLoadsForTheFleet() {
        var machine = Self.machine()
        _ = machine.start(now: .zero)
        #expect(machine.readAnswered(.claimed(Self.claim), now: .milliseconds(1))
            == .load(claim: Self.claim, status: Self.status(.miss), lease: .won))
    }

    /// A herd's waiter: pauses growing from 2 ms to at most 25 ms, `waited` counted once, then the
    /// holder's page is a collapsed hit.
    @Test func aWaiterPausesLongerEachLookAndCountsItsWaitOnce() {
        var machine = Self.machine()
        var now = Duration.zero
        _ = machine.start(now: now)
        var pauses: [Duration] = []
        var leases: [LeaseResult] = []
        for _ in 0..<7 {
            now += .milliseconds(1)
            guard case .pause(let pause, let lease) = machine.readAnswered(.loadingElsewhere, now: now) else {
                Issue.record("no pause while another replica loads")
                return
            }
            pauses.append(pause)
            if let lease { leases.append(lease) }
            now += pause
            #expect(machine.pauseEnded(now: now) == .read(deadline: now + .milliseconds(250 - pauses.count)))
        }
        #expect(pauses.map { $0 / .milliseconds(1) } == [2, 4, 8, 16, 25, 25, 25])
        #expect(leases == [.waited])
        let read = SharedRead.page(Self.page, age: .zero, generation: Self.generation)
        #expect(machine.readAnswered(read, now: now)
            == .answerFresh(Self.document, remaining: .seconds(60), status: Self.status(.hit, ttl: .seconds(60), collapsed: true)))
    }

    /// The holder died: its lease lapsed, and the waiter's next look takes it over.
    @Test func aWaiterTakesOverALapsedLease() {
        var machine = Self.machine()
        _ = machine.start(now: .zero)
        #expect(machine.readAnswered(.loadingElsewhere, now: .zero) == .pause(for: .milliseconds(2), lease: .waited))
        #expect(machine.pauseEnded(now: .milliseconds(2)) == .read(deadline: .milliseconds(252)))
        #expect(machine.readAnswered(.claimed(Self.claim), now: .milliseconds(2))
            == .load(claim: Self.claim, status: Self.status(.miss, collapsed: true), lease: .takenOver))
    }

    /// No pause may reach the load's deadline: the waiter gives up rather than load on a deadline
    /// of its own.
    @Test func aWaitThatWouldReachTheDeadlineGivesUp() {
        var machine = Self.machine(deadline: .milliseconds(10))
        _ = machine.start(now: .zero)
        #expect(machine.readAnswered(.loadingElsewhere, now: .zero) == .pause(for: .milliseconds(2), lease: .waited))
        _ = machine.pauseEnded(now: .milliseconds(2))
        #expect(machine.readAnswered(.loadingElsewhere, now: .milliseconds(2)) == .pause(for: .milliseconds(4), lease: nil))
        _ = machine.pauseEnded(now: .milliseconds(6))
        // 6 + 8 ms reaches the 10 ms deadline.
        #expect(machine.readAnswered(.loadingElsewhere, now: .milliseconds(6)) == .giveUp(lease: nil))
    }

    @Test func theFirstWaitPastTheDeadlineStillCountsAsWaited() {
        var machine = Self.machine(deadline: .milliseconds(2))
        _ = machine.start(now: .zero)
        #expect(machine.readAnswered(.loadingElsewhere, now: .zero) == .giveUp(lease: .waited))
    }

    /// Redis time is one budget for the whole miss; pauses are not Redis time.
    @Test func aSpentBudgetSendsTheLoadUpstreamAlone() {
        var machine = Self.machine()
        _ = machine.start(now: .zero)
        // The read took 200 of the 250 ms.
        #expect(machine.readAnswered(.loadingElsewhere, now: .milliseconds(200)) == .pause(for: .milliseconds(2), lease: .waited))
        #expect(machine.pauseEnded(now: .milliseconds(202)) == .read(deadline: .milliseconds(252)))
        #expect(machine.readAnswered(.loadingElsewhere, now: .milliseconds(252)) == .pause(for: .milliseconds(4), lease: nil))
        #expect(machine.pauseEnded(now: .milliseconds(256)) == .load(claim: nil, status: Self.status(.bypass, collapsed: true), lease: nil))
    }

    @Test func aFailedReadSendsTheLoadUpstreamAlone() {
        var machine = Self.machine()
        _ = machine.start(now: .zero)
        #expect(machine.readFailed(now: .milliseconds(250)) == .load(claim: nil, status: Self.status(.bypass), lease: nil))
    }

    @Test func aNoBudgetAtAllBypassesWithoutAsking() {
        var machine = SharedLookupMachine(settings: SharedCacheSettings(timeout: .zero), deadline: .seconds(3))
        #expect(machine.start(now: .zero) == .load(claim: nil, status: Self.status(.bypass), lease: nil))
    }

    /// Stale within stale-while-revalidate: answered stale at once, and the replica that got the
    /// lease refreshes it for the fleet.
    @Test func aStalePageIsServedAndRefreshedByTheClaimsHolder() {
        var machine = Self.machine()
        _ = machine.start(now: .zero)
        let read = SharedRead.page(Self.page, age: .seconds(70), generation: Self.generation)
        #expect(machine.readAnswered(read, now: .milliseconds(5)) == .claim(generation: Self.generation, deadline: .milliseconds(250)))
        #expect(machine.claimAnswered(Self.claim, now: .milliseconds(6)) == .answerStale(
            Self.document, staleness: .seconds(10), status: Self.status(.stale, ttl: .seconds(-10)), refresh: Self.claim, lease: .won))
    }

    @Test func aStalePageAnotherReplicaRefreshesIsServedWithoutARefresh() {
        var machine = Self.machine()
        _ = machine.start(now: .zero)
        let read = SharedRead.page(Self.page, age: .seconds(70), generation: Self.generation)
        _ = machine.readAnswered(read, now: .zero)
        #expect(machine.claimAnswered(nil, now: .zero) == .answerStale(
            Self.document, staleness: .seconds(10), status: Self.status(.stale, ttl: .seconds(-10)), refresh: nil, lease: nil))
    }

    /// Past stale-while-revalidate (usable on error only): the claim's holder loads it, as on a
    /// miss; without the claim, the replica waits for the holder's page.
    @Test func aPagePastRevalidationIsLoadedByTheClaimsHolderAndWaitedForByTheOthers() {
        let read = SharedRead.page(Self.page, age: .seconds(100), generation: Self.generation)
        var holder = Self.machine()
        _ = holder.start(now: .zero)
        _ = holder.readAnswered(read, now: .zero)
        #expect(holder.claimAnswered(Self.claim, now: .zero) == .load(claim: Self.claim, status: Self.status(.stale), lease: .won))
        var other = Self.machine()
        _ = other.start(now: .zero)
        _ = other.readAnswered(read, now: .zero)
        #expect(other.claimAnswered(nil, now: .zero) == .pause(for: .milliseconds(2), lease: .waited))
    }

    @Test func aStalePageWithTheBudgetSpentIsServedWithoutAClaim() {
        var machine = Self.machine()
        _ = machine.start(now: .zero)
        let read = SharedRead.page(Self.page, age: .seconds(70), generation: Self.generation)
        #expect(machine.readAnswered(read, now: .milliseconds(250)) == .answerStale(
            Self.document, staleness: .seconds(10), status: Self.status(.stale, ttl: .seconds(-10)), refresh: nil, lease: nil))
    }

    /// A page past both stale windows is a miss, waited for like one.
    @Test func aPagePastEveryWindowIsWaitedFor() {
        var machine = Self.machine()
        _ = machine.start(now: .zero)
        let read = SharedRead.page(Self.page, age: .seconds(400), generation: Self.generation)
        #expect(machine.readAnswered(read, now: .zero) == .pause(for: .milliseconds(2), lease: .waited))
    }
}
