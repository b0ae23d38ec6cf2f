import Testing
@testable import ProductDetails

/// Whole-page admission over three limits and one queue, stepped on explicit times.
@Suite("Admission machine")
struct AdmissionMachineTests {
    /// Fixed limits (floor = ceiling), so each test says exactly when room runs out.
    static func machine(limit: Int = 2, capacity: Int = 8) -> AdmissionMachine {
        AdmissionMachine(policy: .init(
            limit: .init(floor: limit, ceiling: limit, initial: limit),
            queue: .init(target: .milliseconds(5), interval: .milliseconds(100), capacity: capacity),
            quietAfterShedding: .seconds(5)))
    }

    let far = Duration.seconds(3)

    @Test func aLoadTakesRoomAtEveryUpstreamItNeedsOrWaits() {
        var machine = Self.machine(limit: 1)
        var actions = AdmissionMachine.Actions()
        #expect({ machine.arrive(1, needs: .all, deadline: far, mayWait: true, at: .zero, actions: &actions) }() == .admitted)
        #expect(machine.limit(of: .reviews).inFlight == 1)
        // Products only (the others' breakers open) still finds no room at products.
        #expect({ machine.arrive(2, needs: UpstreamSet(.products), deadline: far, mayWait: true, at: .zero, actions: &actions) }() == .queued)
        #expect(machine.queued == 1)
        // Room at reviews is not enough for a load that needs products.
        machine.end(.reviews, .answered(after: .milliseconds(20)), at: .milliseconds(20), actions: &actions)
        #expect(actions.admitted.isEmpty)
        machine.end(.products, .answered(after: .milliseconds(20)), at: .milliseconds(21), actions: &actions)
        #expect(actions.admitted.map(\.ticket) == [2])
        #expect(actions.admitted.first?.waited == .milliseconds(21))
        #expect(machine.limit(of: .products).inFlight == 1 && machine.limit(of: .reviews).inFlight == 0)
    }

    @Test func aRetryOrAHedgeGetsRoomOnlyWhileNothingWaits() {
        var machine = Self.machine(limit: 2)
        var actions = AdmissionMachine.Actions()
        #expect({ machine.arrive(1, needs: .all, deadline: far, mayWait: true, at: .zero, actions: &actions) }() == .admitted)
        #expect({ machine.tryStart(.products, at: .zero) }(), "room for one more, nobody waiting")
        #expect(!{ machine.tryStart(.products, at: .zero) }(), "the limit is full")
        #expect({ machine.tryStart(.reviews, at: .zero) }())
        #expect({ machine.arrive(2, needs: .all, deadline: far, mayWait: true, at: .zero, actions: &actions) }() == .queued)
        machine.end(.suggestions, .nothing, at: .zero, actions: &actions)
        #expect(!{ machine.tryStart(.suggestions, at: .zero) }(), "a page waits: its room comes first")
    }

    @Test func queuedLoadsThatWaitTooLongAreRefusedAndSheddingIsReportedOnceEachWay() {
        var machine = Self.machine(limit: 1)
        var actions = AdmissionMachine.Actions()
        _ = machine.arrive(1, needs: .all, deadline: far, mayWait: true, at: .zero, actions: &actions)
        #expect({ machine.arrive(2, needs: .all, deadline: far, mayWait: true, at: .zero, actions: &actions) }() == .queued)
        #expect(machine.nextExpiry(at: .zero) == .milliseconds(100) + .nanoseconds(1))
        machine.tick(at: .milliseconds(100) + .nanoseconds(1), actions: &actions)
        #expect(actions.refused.map(\.ticket) == [2] && actions.refused.first?.reason == .queueTimeout)
        #expect(actions.shedding == true)
        #expect(machine.isShedding)
        actions = .init()
        _ = machine.arrive(3, needs: .all, deadline: far, mayWait: false, at: .seconds(1), actions: &actions)
        #expect(actions.shedding == nil, "still shedding: not reported again")
        actions = .init()
        machine.end(.products, .nothing, at: .seconds(6), actions: &actions)
        #expect(actions.shedding == false, "five quiet seconds end it")
    }

    @Test func aFullQueueABackgroundRefreshAndADeadlineTooCloseAreRefusedAtOnce() {
        var machine = Self.machine(limit: 1, capacity: 1)
        var actions = AdmissionMachine.Actions()
        _ = machine.arrive(1, needs: .all, deadline: far, mayWait: true, at: .zero, actions: &actions)
        #expect({ machine.arrive(2, needs: .all, deadline: far, mayWait: false, at: .zero, actions: &actions) }() == .refused(.background))
        #expect({ machine.arrive(3, needs: .all, deadline: far, mayWait: true, at: .zero, actions: &actions) }() == .queued)
        #expect({ machine.arrive(4, needs: .all, deadline: far, mayWait: true, at: .zero, actions: &actions) }() == .refused(.queueFull))
        // Once the upstreams' baseline is known, a load with less time left is not let through.
        var learnt = Self.machine(limit: 8)
        for upstream in Upstream.allCases {
            for _ in 0..<5 { learnt.start(upstream) }
            for _ in 0..<5 { learnt.end(upstream, .answered(after: .milliseconds(40)), at: .milliseconds(100), actions: &actions) }
        }
        #expect(learnt.baseline(of: .products) == .milliseconds(40))
        let now = Duration.seconds(1)
        #expect({ learnt.arrive(5, needs: .all, deadline: now + .milliseconds(39), mayWait: true, at: now, actions: &actions) }() == .refused(.deadline))
        #expect({ learnt.arrive(6, needs: .all, deadline: now + .milliseconds(40), mayWait: true, at: now, actions: &actions) }() == .admitted)
    }

    @Test func aCancelledLoadLeavesTheQueueOnlyIfStillInIt() {
        var machine = Self.machine(limit: 1)
        var actions = AdmissionMachine.Actions()
        _ = machine.arrive(1, needs: .all, deadline: far, mayWait: true, at: .zero, actions: &actions)
        _ = machine.arrive(2, needs: .all, deadline: far, mayWait: true, at: .zero, actions: &actions)
        _ = machine.arrive(3, needs: .all, deadline: far, mayWait: true, at: .zero, actions: &actions)
        #expect({ machine.cancel(2, at: .zero) }())
        #expect(!{ machine.cancel(2, at: .zero) }())
        for upstream in Upstream.allCases { machine.end(upstream, .nothing, at: .milliseconds(1), actions: &actions) }
        #expect(actions.admitted.map(\.ticket) == [3])
        #expect(!{ machine.cancel(3, at: .milliseconds(1)) }(), "admitted: its room is the caller's to give back")
    }
}

extension AdmissionMachine {
    /// Room taken the way a retry takes it, for tests that feed the limits samples.
    fileprivate mutating func start(_ upstream: Upstream) {
        _ = tryStart(upstream, at: .zero)
    }
}
