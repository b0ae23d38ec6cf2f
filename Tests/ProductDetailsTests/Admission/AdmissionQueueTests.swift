import Testing
@testable import ProductDetails

/// Controlled delay and adaptive LIFO, stepped on explicit times.
@Suite("Admission queue")
struct AdmissionQueueTests {
    let policy = AdmissionQueue<Int>.Policy(target: .milliseconds(5), interval: .milliseconds(100), capacity: 3)

    @Test func aBurstIsServedOldestFirstAndMayWaitTheInterval() {
        var queue = AdmissionQueue<Int>(policy: policy)
        queue.enqueue(1, at: .seconds(50))
        queue.enqueue(2, at: .seconds(50) + .milliseconds(1))
        let now = Duration.seconds(50) + .milliseconds(2)
        #expect(!queue.isStanding(at: now), "it was empty until just now")
        #expect(queue.allowance(at: now) == .milliseconds(100))
        #expect({ queue.takeNext(at: now) }()?.ticket == 1)
        #expect({ queue.expire(at: .seconds(50) + .milliseconds(99)) }().isEmpty, "2 waited 98 ms of its 100")
        // Not empty since 50 s: at 50.1 s the queue has stood an interval, and 2 waited past the target.
        #expect({ queue.expire(at: .seconds(50) + .milliseconds(100)) }().map(\.ticket) == [2])
        #expect(queue.isEmpty)
    }

    @Test func onceTheQueueStandsTheNewestIsServedAndTheOldWaitOnlyTheTarget() {
        var queue = AdmissionQueue<Int>(policy: policy)
        var now = Duration.zero
        queue.enqueue(1, at: now)
        now += .milliseconds(99)
        queue.enqueue(2, at: now)
        #expect(!queue.isStanding(at: now))
        now += .milliseconds(1)
        #expect(queue.isStanding(at: now), "not empty for an interval")
        queue.enqueue(3, at: now)
        #expect(queue.next(at: now)?.ticket == 3, "newest first")
        #expect({ queue.takeNext(at: now) }()?.ticket == 3)
        // 1 waited 100 ms and 2 one: past the target, only 1 goes now.
        #expect({ queue.expire(at: now) }().map(\.ticket) == [1])
        #expect({ queue.expire(at: now + .milliseconds(4)) }().isEmpty, "2 waited exactly the target")
        #expect({ queue.expire(at: now + .milliseconds(5)) }().map(\.ticket) == [2])
    }

    @Test func theNextExpiryIsWhenTheOldestWaitRunsOut() {
        var queue = AdmissionQueue<Int>(policy: policy)
        #expect(queue.nextExpiry(at: .zero) == nil)
        queue.enqueue(1, at: .milliseconds(10))
        // Not standing: the interval; it will stand at 110 ms, when its wait runs out anyway.
        #expect(queue.nextExpiry(at: .milliseconds(10)) == .milliseconds(110) + .nanoseconds(1))
        _ = queue.takeNext(at: .milliseconds(20))
        queue.enqueue(2, at: .milliseconds(20))
        queue.enqueue(3, at: .milliseconds(125))
        _ = queue.remove(2, at: .milliseconds(125))
        // Not empty since 20 ms: it stands at 120 ms, so 3 may wait its target from 125 ms.
        let expiry = queue.nextExpiry(at: .milliseconds(125))
        #expect(expiry == .milliseconds(130) + .nanoseconds(1))
        #expect({ queue.expire(at: expiry!) }().map(\.ticket) == [3])
    }

    /// A short queue emptied for a moment by answers arriving together is still an overloaded
    /// one: until no load was refused for an interval, loads wait only the target, newest first.
    @Test func overloadOutlastsAMomentOfEmptyQueue() {
        var queue = AdmissionQueue<Int>(policy: policy)
        queue.enqueue(1, at: .zero)
        queue.enqueue(2, at: .milliseconds(100))
        #expect({ queue.expire(at: .milliseconds(100)) }().map(\.ticket) == [1], "stood an interval: 1 waited past the target")
        #expect({ queue.takeNext(at: .milliseconds(101)) }()?.ticket == 2)
        #expect(queue.isEmpty)
        queue.enqueue(3, at: .milliseconds(102))
        queue.enqueue(4, at: .milliseconds(103))
        #expect(queue.isStanding(at: .milliseconds(103)), "refused 3 ms ago")
        #expect(queue.next(at: .milliseconds(103))?.ticket == 4, "newest first")
        #expect(queue.nextExpiry(at: .milliseconds(103)) == .milliseconds(107) + .nanoseconds(1))
        #expect({ queue.expire(at: .milliseconds(107) + .nanoseconds(1)) }().map(\.ticket) == [3])
        // A whole interval without a refusal, and a queue emptied within it: a burst again.
        _ = queue.takeNext(at: .milliseconds(108))
        queue.enqueue(5, at: .milliseconds(208))
        #expect(!queue.isStanding(at: .milliseconds(208)))
        #expect(queue.allowance(at: .milliseconds(208)) == .milliseconds(100))
    }

    @Test func itHoldsAtMostItsCapacityAndForgetsWhatIsRemoved() {
        var queue = AdmissionQueue<Int>(policy: policy)
        for ticket in 1...3 { queue.enqueue(ticket, at: .zero) }
        #expect(queue.isFull)
        #expect({ queue.remove(2, at: .zero) }())
        #expect(!{ queue.remove(2, at: .zero) }())
        #expect(queue.count == 2 && !queue.isFull)
        #expect({ queue.takeNext(at: .zero) }()?.ticket == 1)
        #expect({ queue.takeNext(at: .zero) }()?.ticket == 3)
        #expect({ queue.takeNext(at: .zero) }() == nil)
    }
}
