@testable import ProductDetails
import PureTestSupport
import TestSupport
import Testing
import Timekeeping

/// The admission shell on the manual clock: parked loads resume when room comes, when their
/// wait runs out (one timer for the queue) or when they are cancelled.
@Suite("Load admission")
struct LoadAdmissionTests {
    let time = ManualTimeSource()
    let events = RecordingEvents()

    func admission(limit: Int = 1) -> LoadAdmission {
        LoadAdmission(
            policy: .init(limit: .init(floor: limit, ceiling: limit, initial: limit), queue: .init()), time: time, events: events)
    }

    @Test func aLoadWithRoomIsAdmittedAtOnceWithNoTimer() async {
        let admission = admission()
        #expect(await admission.admit(.all, deadline: .seconds(3)) == .admitted)
        #expect(time.scheduledCount == 0)
        #expect(admission.limit(of: .products) == (1, 1))
    }

    @Test func aWaitingLoadIsAdmittedWhenRoomComes() async {
        let admission = admission()
        _ = await admission.admit(.all, deadline: .seconds(3))
        let waiting = Task { await admission.admit(.all, deadline: .seconds(3)) }
        // Its timer is armed just after it queued: one for the queue's next expiry.
        await eventually { admission.queued == 1 && time.scheduledCount == 1 }
        for upstream in Upstream.allCases { admission.end(upstream, .answered(after: .milliseconds(20))) }
        #expect(await waiting.value == .admitted)
        #expect(admission.queued == 0)
    }

    @Test func aLoadThatWaitedItsBoundIsRefusedByTheTimer() async {
        let admission = admission()
        _ = await admission.admit(.all, deadline: .seconds(3))
        let waiting = Task { await admission.admit(.all, deadline: .seconds(3)) }
        await eventually { admission.queued == 1 && time.scheduledCount == 1 }
        time.advance(by: .milliseconds(100))
        #expect(admission.queued == 1, "not yet past its interval")
        time.advance(by: .milliseconds(1))
        #expect(await waiting.value == .refused(.queueTimeout))
        #expect(events.all.contains("shed queue_timeout") && events.count("shedding started") == 1)
    }

    @Test func aCancelledWaiterLeavesAtOnceAndTakesNoRoom() async {
        let admission = admission()
        _ = await admission.admit(.all, deadline: .seconds(3))
        let waiting = Task { await admission.admit(.all, deadline: .seconds(3)) }
        await eventually { admission.queued == 1 }
        waiting.cancel()
        #expect(await waiting.value == .cancelled)
        #expect(admission.queued == 0)
        for upstream in Upstream.allCases { admission.end(upstream, .nothing) }
        #expect(admission.limit(of: .products) == (1, 0))
    }

    @Test func aTaskCancelledBeforeItWaitsDoesNotWait() async {
        let admission = admission()
        _ = await admission.admit(.all, deadline: .seconds(3))
        let waiting = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await admission.admit(.all, deadline: .seconds(3))
        }
        #expect(await waiting.value == .cancelled)
        #expect(admission.queued == 0)
    }
}
