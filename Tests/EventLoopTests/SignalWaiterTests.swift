import EventLoop
import Testing

#if canImport(Glibc)
import Glibc
#endif

struct SignalWaiterTests {
    /// SIGWINCH and SIGURG are ignored by default, so a signal that arrived unwatched could not
    /// end the test process.
    @Test func theFirstWatchedSignalEndsTheWaitAndStaysTheAnswer() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let waiter = SignalWaiter()
        try await waiter.watch(on: group.loops[0], for: [SIGWINCH, SIGURG])
        kill(getpid(), SIGURG)
        #expect(await waiter.wait() == SIGURG)
        kill(getpid(), SIGWINCH)
        #expect(await waiter.wait() == SIGURG)
        await waiter.stop()
    }
}
