import EventLoop
import Locking
import Testing

/// The one adapter from an operation's callback form to its async form.
@Suite("Loop operation")
struct LoopOperationTests {
    /// An operation that answers only when told, or `-1` when cancelled: what it ran on and when.
    final class Held: LoopOperation {
        struct State {
            var completion: LoopCompletion<Int>?
            var startedOnLoop = false
            var cancelledOnLoop = false
        }

        let loop: EventLoop
        let state = Locked(State())
        var refused: Int { -2 }

        init(loop: EventLoop) {
            self.loop = loop
        }

        func start(_ completion: LoopCompletion<Int>) {
            let onLoop = loop.inLoop
            state.withLock {
                $0.completion = completion
                $0.startedOnLoop = onLoop
            }
        }

        func cancel() {
            let onLoop = loop.inLoop
            let completion = state.withLock { state in
                state.cancelledOnLoop = onLoop
                return state.completion.take()
            }
            completion?(-1)
        }

        /// Answers `value` on the loop, as a reply read there would.
        func answer(_ value: Int) {
            _ = loop.execute { [self] in state.withLock { $0.completion.take() }?(value) }
        }

        var started: Bool { state.withLock { $0.completion != nil } }
    }

    @Test func aTaskOffTheLoopStartsItOnTheLoopAndGetsItsValue() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let operation = Held(loop: group.loops[0])
        let waiting = Task { await operation.value() }
        while !operation.started { await Task.yield() }
        operation.answer(7)
        #expect(await waiting.value == 7)
        #expect(operation.state.withLock { $0.startedOnLoop })
    }

    @Test func aCancelledTaskCancelsItOnTheLoopAndIsResumedAtOnce() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let operation = Held(loop: group.loops[0])
        let waiting = Task { await operation.value() }
        while !operation.started { await Task.yield() }
        waiting.cancel()
        #expect(await waiting.value == -1)
        #expect(operation.state.withLock { $0.cancelledOnLoop })
    }

    @Test func aStoppedLoopRefusesIt() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let operation = Held(loop: group.loops[0])
        group.shutdown()
        #expect(await operation.value() == -2)
        #expect(!operation.started)
    }
}
