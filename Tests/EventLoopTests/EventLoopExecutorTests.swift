import EventLoop
import Locking
import Synchronization
import Testing

/// An actor with the default executor, so awaiting it leaves the loop and must come back.
private actor Elsewhere {
    var calls = 0
    func touch() -> Int {
        calls += 1
        return calls
    }
}

@Suite("Event loop as executor")
struct EventLoopExecutorTests {
    @Test func handlerTaskRunsOnItsLoopThread() async throws {
        let group = try EventLoopGroup(loopCount: 2)
        defer { group.shutdown() }
        for loop in group.loops {
            let observed = await Task(executorPreference: loop) { () -> [Bool] in
                var seen = [EventLoop.current === loop]
                await Task.yield()
                seen.append(EventLoop.current === loop)
                _ = await Elsewhere().touch()
                seen.append(EventLoop.current === loop)
                return seen
            }.value
            #expect(observed == [true, true, true])
        }
    }

    @Test func childTasksInheritTheLoop() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let onLoop = await Task(executorPreference: loop) { () -> Bool in
            async let first = EventLoop.current === loop
            async let second = EventLoop.current === loop
            let (a, b) = await (first, second)
            return a && b
        }.value
        #expect(onLoop)
    }

    @Test func executeFromAnotherThreadRunsOnTheLoop() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let ranOnLoop = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            loop.execute { continuation.resume(returning: loop.inLoop) }
        }
        #expect(ranOnLoop)
        #expect(!loop.inLoop)
    }

    @Test func thousandsOfCrossThreadJobsAllRunInOrder() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let seen = Locked<[Int]>([])
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            for index in 0..<5_000 {
                loop.execute {
                    seen.withLock { $0.append(index) }
                    if index == 4_999 { continuation.resume() }
                }
            }
        }
        #expect(seen.withLock { $0 } == Array(0..<5_000))
    }

    @Test func shutdownJoinsAndLaterWorkIsRefused() throws {
        let group = try EventLoopGroup(loopCount: 2)
        group.shutdown()
        #expect(group.loops[0].execute {} == false)
        group.shutdown()
    }
}

/// An actor whose executor is an event loop.
private actor LoopBoundCounter {
    let loop: EventLoop
    private var count = 0

    init(loop: EventLoop) { self.loop = loop }

    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    func increment() -> (Int, Bool) {
        count += 1
        return (count, loop.inLoop)
    }
}

@Suite("Loop-bound actors")
struct LoopBoundActorTests {
    @Test func actorMethodsRunOnTheLoopFromAnyCaller() async throws {
        let group = try EventLoopGroup(loopCount: 2)
        defer { group.shutdown() }
        let counter = LoopBoundCounter(loop: group.loops[0])
        let fromPool = await counter.increment()
        let fromOtherLoop = await Task(executorPreference: group.loops[1]) { () -> (Int, Bool, Bool) in
            let (count, onLoop) = await counter.increment()
            return (count, onLoop, EventLoop.current === group.loops[1])
        }.value
        #expect(fromPool == (1, true))
        #expect(fromOtherLoop == (2, true, true))
    }
}
