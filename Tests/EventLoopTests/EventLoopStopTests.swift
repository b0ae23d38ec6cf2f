import Dispatch
import EventLoop
import Synchronization
import Testing

/// Stopping a loop while work is queued beside the stop.
@Suite("Event loop stop")
struct EventLoopStopTests {
    /// The stop ran its own drain from inside the drain running it, which swapped the batch being
    /// run back into the queues: work queued in the same batch as the stop ran twice. A task's job
    /// run twice resumes the task twice, which showed as crashes in "destroy for LoadedDocument"
    /// when test loops stopped under load.
    @Test func workQueuedBesideTheStopRunsOnce() throws {
        let group = try EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]
        let before = Atomic<Int>(0)
        let after = Atomic<Int>(0)
        let blocking = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        // The loop is held inside one batch while the next one is queued: work, the stop, work.
        _ = loop.execute {
            blocking.signal()
            release.wait()
        }
        blocking.wait()
        _ = loop.execute { before.add(1, ordering: .relaxed) }
        loop.requestStop()
        _ = loop.execute { after.add(1, ordering: .relaxed) }
        release.signal()
        group.shutdown()
        #expect(before.load(ordering: .relaxed) == 1)
        #expect(after.load(ordering: .relaxed) == 1)
    }
}
