@testable import EventLoop
import Locking
import Testing
import TestSupport
import Timekeeping

@Suite("Loop busy polling")
struct LoopBusyPollTests {
    static let microsecond: UInt64 = 1_000

    /// Steps `poll` and says what the loop was told: "start", "stop" or "-".
    static func step(_ poll: inout LoopBusyPoll, _ event: String, at microseconds: UInt64) -> String {
        let now = microseconds * microsecond
        switch event {
        case "begin": return poll.begin(budget: 100 * microsecond, now: now) ? "start" : "-"
        case "end": return poll.end(now: now) ? "stop" : "-"
        default: return poll.turn(now: now) ? "stop" : "-"
        }
    }

    @Test func theFirstHolderStartsPollingAndTheLastOneToEndStopsIt() {
        var poll = LoopBusyPoll()
        let told = [("begin", 0), ("begin", 10), ("turn", 15), ("end", 20), ("end", 30)].map { Self.step(&poll, $0.0, at: UInt64($0.1)) }
        #expect(told == ["start", "-", "-", "-", "stop"])
        #expect(!poll.isPolling)
        #expect(poll.holders == 0)
        #expect(poll.polledTime(now: 1_000 * Self.microsecond) == 30 * Self.microsecond)
    }

    @Test func pollingStopsWhenTheLatestBudgetRunsOut() {
        var poll = LoopBusyPoll()
        // The second holder's budget reaches further; holders whose budget ran out end later,
        // stopping nothing.
        let told = [("begin", 0), ("begin", 50), ("turn", 120), ("turn", 150), ("end", 200), ("end", 210)]
            .map { Self.step(&poll, $0.0, at: UInt64($0.1)) }
        #expect(told == ["start", "-", "-", "stop", "-", "-"])
        #expect(poll.holders == 0)
        #expect(poll.polledTime(now: 300 * Self.microsecond) == 150 * Self.microsecond)
    }

    @Test func aHolderAfterAnExpiredOneStartsPollingAgainForItsOwnBudget() {
        var poll = LoopBusyPoll()
        // The expired holder ends while the new one polls: the new one still does.
        let told = [("begin", 0), ("turn", 100), ("begin", 500), ("turn", 550), ("end", 560), ("end", 570)]
            .map { Self.step(&poll, $0.0, at: UInt64($0.1)) }
        #expect(told == ["start", "stop", "start", "-", "-", "stop"])
        #expect(poll.polledTime(now: 600 * Self.microsecond) == 170 * Self.microsecond)
    }

    @Test func theCurrentSpanCountsBeforeItEnds() {
        var poll = LoopBusyPoll()
        _ = Self.step(&poll, "begin", at: 1_000)
        #expect(poll.polledTime(now: 1_040 * Self.microsecond) == 40 * Self.microsecond)
    }

    /// On a real loop: polling ends by its budget with no holder ending it, and a loop that did
    /// nothing but poll reads idle, not saturated.
    @Test func aLoopPollingForItsBudgetEndsAndReadsIdle() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let clock = LoopTimeSource(fallbackLoop: loop)
        let (began, utilization, pollingAfter, pollingAfterEnd) = try await Task(executorPreference: loop) {
            () -> (Bool, Double, Bool, Bool) in
            _ = loop.utilization
            loop.beginBusyPoll(for: .milliseconds(250))
            let began = loop.isBusyPolling
            try await clock.sleep(for: .milliseconds(300))
            let pollingAfter = loop.isBusyPolling
            // The holder ends after its budget ran out: nothing is left holding the loop.
            loop.endBusyPoll()
            return (began, loop.utilization, pollingAfter, loop.isBusyPolling)
        }.value
        #expect(began)
        #expect(utilization < 0.5)
        #expect(!pollingAfter)
        #expect(!pollingAfterEnd)
    }

    /// The loop's side of the stop test; touched only on the loop thread.
    final class Accepted: @unchecked Sendable {
        var listener: TCPListener?
        var streams: [TCPStream] = []
    }

    /// Work queued by a handle's close callback runs in the stop's last drain, after the idle
    /// handle was closed and freed: a busy poll begun there must not touch it (it did, a use
    /// after free, and the loop read as polling).
    @Test func aBusyPollBegunAfterTheStopClosedTheLoopsHandlesDoesNothing() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]
        let accepted = Accepted()
        let seen = Locked<Bool?>(nil)
        let (acceptances, report) = AsyncStream.makeStream(of: Void.self)
        let port = try await Task(executorPreference: loop) { () throws -> Int in
            let listener = try TCPListener(loop: loop, address: try SocketAddress(ip: "127.0.0.1", port: 0), reusePort: false) { stream in
                accepted.streams.append(stream)
                report.yield()
                stream.onClose = {
                    _ = loop.execute {
                        loop.beginBusyPoll(for: .seconds(5))
                        seen.withLock { $0 = loop.isBusyPolling }
                    }
                }
            }
            accepted.listener = listener
            return listener.port
        }.value
        let client = try await RawClient.connect(port: port, readTimeoutSeconds: 10)
        var reports = acceptances.makeAsyncIterator()
        _ = await reports.next()
        group.shutdown()
        #expect(seen.withLock { $0 } == false)
        _ = client
    }
}
