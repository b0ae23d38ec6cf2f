import HTTP1
@testable import HTTPServer
import Testing

/// A server connection's rules (keep-alive, pipelining, the read, idle and write timeouts,
/// backpressure, shutdown), stepped with bytes and times as plain values: each timing rule holds
/// exactly, with no window for a slow host.
@Suite("Server connection state machine")
struct HTTPConnectionStateMachineTests {
    private static func get(_ path: String, _ fields: String = "") -> String {
        "GET \(path) HTTP/1.1\r\nHost: t\r\n\(fields)\r\n"
    }

    @Test func keepAliveRequestsAreAnsweredOneAtATimeInOrder() {
        var driver = ConnectionMachineDriver()
        driver.receive(Self.get("/a") + Self.get("/b") + Self.get("/c"))
        #expect(driver.state == .responding)
        driver.answer()
        driver.answer()
        driver.answer()
        #expect(driver.events == ["request /a", "answered /a", "request /b", "answered /b", "request /c", "answered /c"])
        #expect(driver.state == .awaitingHead)
        #expect(driver.machine.inbound.isEmpty)
    }

    @Test func bytesArrivingWhileAnsweringWaitForTheAnswer() {
        var driver = ConnectionMachineDriver()
        driver.receive(Self.get("/a"))
        driver.receive(Self.get("/b"))
        #expect(driver.events == ["request /a"])
        driver.answer()
        #expect(driver.events == ["request /a", "answered /a", "request /b"])
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", false),
        ("GET / HTTP/1.0\r\n\r\n", false),
        ("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", true),
        ("GET / HTTP/1.1\r\nHost: t\r\n\r\n", true),
    ])
    func keepAliveFollowsTheRequest(request: String, keepsAlive: Bool) {
        var driver = ConnectionMachineDriver { $0.idleTimeout = .seconds(60) }
        driver.receive(request)
        driver.advance(to: .seconds(1))
        driver.answer()
        #expect(driver.events.last == (keepsAlive ? "answered /" : "answered /, closing"))
        #expect(driver.state == (keepsAlive ? .awaitingHead : .closed))
        // Kept alive: the idle timer armed at the start, which counts from the answer when it
        // fires. Closing: the bound on writing the last answer, from the answer.
        #expect(driver.timerDeadline == (keepsAlive ? .seconds(60) : .seconds(61)))
    }

    enum LastAnswer: CaseIterable {
        case connectionClose, refusal, readTimeout
    }

    /// A connection's last answer (to `Connection: close`, a refusal, a 408) has the idle timeout
    /// to be taken by the client, then the connection closes. Closing used to stop the timer: a
    /// client that never read kept the socket, its output and a connection slot for ever, and a
    /// shutdown waited for it.
    @Test(arguments: LastAnswer.allCases)
    func aLastAnswerNotTakenWithinTheIdleTimeoutClosesTheConnection(_ last: LastAnswer) {
        var driver = ConnectionMachineDriver {
            $0.requestReadTimeout = .seconds(2)
            $0.idleTimeout = .seconds(5)
        }
        driver.advance(to: .seconds(1))
        switch last {
        case .connectionClose:
            driver.receive(Self.get("/", "Connection: close\r\n"))
            driver.advance(to: .seconds(3))
            driver.answer()
        case .refusal:
            driver.advance(to: .seconds(3))
            driver.receive("GET / HTTP/1.1\r\nBad Header\r\n\r\n")
        case .readTimeout:
            driver.receive("GET / HT")
            driver.advance(to: .seconds(3))
        }
        #expect(driver.state == .closed)
        #expect(driver.timerDeadline == .seconds(8))
        driver.advance(to: .seconds(8) - .nanoseconds(1))
        #expect(driver.events.last?.hasPrefix("closed") == false)
        driver.advance(to: .seconds(8))
        #expect(driver.events.last == "closed at 8.0 seconds")
    }

    @Test func aClosingAnswerArmsADeadlineThatCloses() {
        var machine = HTTPConnectionStateMachine(configuration: {
            var configuration = ServerConfiguration()
            configuration.idleTimeout = .seconds(5)
            return configuration
        }())
        _ = Array(Self.get("/", "Connection: close\r\n").utf8).withUnsafeBytes { machine.received($0) }
        _ = machine.parseNext(now: .zero)
        _ = machine.dispatching()
        _ = machine.takeRequest()
        let answered = machine.answering(requestKeepAlive: false, draining: false)
        let timer = machine.closeAfterWriting(now: .zero)
        let fired = machine.timerFired(now: .seconds(5))
        #expect(answered == .close)
        #expect(timer == .arm(after: .seconds(5)))
        #expect(fired == .close)
    }

    @Test func aRequestNotReceivedWithinTheReadTimeoutGets408FromItsFirstByte() {
        var driver = ConnectionMachineDriver { $0.requestReadTimeout = .seconds(10) }
        driver.advance(to: .seconds(1))
        driver.receive("GET /a HTTP/1.1\r\nHo")
        #expect(driver.timerDeadline == .seconds(11))
        // Later bytes do not restart it: a trickling client loses.
        driver.advance(to: .seconds(5))
        driver.receive("st: t\r\n")
        driver.advance(to: .seconds(11) - .nanoseconds(1))
        #expect(driver.events.isEmpty)
        driver.advance(to: .seconds(11))
        #expect(driver.events == ["408 at 11.0 seconds"])
        #expect(driver.state == .closed)
        let head = driver.machine.takeRefusedHead()
        #expect(head == nil, "no head was complete")
    }

    @Test func wholeLinesAlreadyConsumedStillCountAsABegunRequest() {
        var driver = ConnectionMachineDriver { $0.requestReadTimeout = .seconds(10) }
        driver.receive("GET /a HTTP/1.1\r\n")
        #expect(driver.machine.inbound.isEmpty)
        #expect(driver.timerDeadline == .seconds(10))
    }

    /// RFC 9112 §2.2: a server ignores empty lines before a request. A CRLF after a request
    /// (some clients send one) begins nothing, so the connection is idle; it counted as a request
    /// begun, and got a 408 at the read timeout with nothing outstanding.
    @Test func anEmptyLineAfterARequestLeavesTheConnectionIdle() {
        var machine = HTTPConnectionStateMachine(configuration: {
            var configuration = ServerConfiguration()
            configuration.requestReadTimeout = .seconds(10)
            configuration.idleTimeout = .seconds(60)
            return configuration
        }())
        _ = Array((Self.get("/") + "\r\n").utf8).withUnsafeBytes { machine.received($0) }
        let parsed = machine.parseNext(now: .zero)
        _ = machine.dispatching()
        _ = machine.takeRequest()
        let answered = machine.answering(requestKeepAlive: true, draining: false)
        let next = machine.parseNext(now: .seconds(1))
        #expect(parsed == .request)
        #expect(answered == .keepAlive)
        #expect(next == .needMoreData(sendContinue: false, timer: .arm(after: .seconds(60))))
    }

    /// The read timer of a request answered at once goes with it: the request pipelined behind
    /// it, begun in the same read, gets a whole read timeout from its own first byte.
    @Test func aPipelinedRequestGetsAReadTimeoutOfItsOwn() {
        var driver = ConnectionMachineDriver { $0.requestReadTimeout = .seconds(1) }
        driver.receive("GET /now/1 HTTP/1.1\r\nHo")
        #expect(driver.timerDeadline == .seconds(1))
        driver.advance(to: .milliseconds(700))
        driver.receive("st: t\r\n\r\nGET /now/2 HTTP/1.1\r\nHo")
        #expect(driver.timerDeadline == nil, "the first request's read timer stops with it")
        driver.answer()
        #expect(driver.timerDeadline == .milliseconds(1700))
        driver.advance(to: .milliseconds(1400))
        driver.receive("st: t\r\n\r\n")
        driver.answer()
        #expect(driver.events == ["request /now/1", "answered /now/1", "request /now/2", "answered /now/2"])
        driver.advance(to: .seconds(5))
        #expect(driver.events.count == 4, "no 408 for an answered request")
    }

    @Test func aBusyConnectionStaysOpenPastItsIdleTimeoutThenClosesExactlyOneTimeoutAfterItsLastAnswer() {
        var driver = ConnectionMachineDriver { $0.idleTimeout = .seconds(1) }
        #expect(driver.timerDeadline == .seconds(1))
        for step in 1...19 {
            driver.advance(to: .milliseconds(100 * step))
            driver.receive(Self.get("/now/\(step)"))
            driver.answer()
        }
        #expect(driver.state == .awaitingHead)
        #expect(!driver.events.contains { $0.hasPrefix("closed") })
        driver.advance(to: .milliseconds(2900) - .nanoseconds(1))
        #expect(driver.state == .awaitingHead)
        driver.advance(to: .milliseconds(2900))
        #expect(driver.events.last == "closed at 2.9 seconds")
        #expect(driver.state == .closed)
    }

    /// The idle timer is armed once per idle spell, not per answer.
    @Test func answersInOneReadDoNotTouchTheIdleTimer() {
        var driver = ConnectionMachineDriver { $0.idleTimeout = .seconds(1) }
        driver.advance(to: .milliseconds(300))
        driver.receive(Self.get("/a"))
        #expect(driver.timerDeadline == .seconds(1))
        driver.answer()
        #expect(driver.timerDeadline == .seconds(1))
    }

    @Test func aHandlerRunningPastTheIdleTimeoutKeepsItsConnection() {
        var driver = ConnectionMachineDriver { $0.idleTimeout = .seconds(1) }
        driver.advance(to: .milliseconds(500))
        driver.receive(Self.get("/held"))
        driver.advance(to: .seconds(3))
        #expect(driver.state == .responding)
        #expect(driver.timerDeadline == nil, "no idle timeout while answering")
        driver.answer()
        #expect(driver.timerDeadline == .seconds(4))
        driver.advance(to: .seconds(4))
        #expect(driver.events == ["request /held", "answered /held", "closed at 4.0 seconds"])
    }

    @Test func aFreshConnectionThatSendsNothingClosesAfterTheIdleTimeout() {
        var driver = ConnectionMachineDriver { $0.idleTimeout = .seconds(60) }
        driver.advance(to: .seconds(120))
        #expect(driver.events == ["closed at 60.0 seconds"])
    }

    @Test func tooManyBytesWaitingBehindAnAnswerStopReading() {
        var driver = ConnectionMachineDriver { $0.maxBufferedInputBytes = 64 }
        driver.receive(Self.get("/a"))
        driver.receive(Self.get("/b"))
        #expect(!driver.readingStopped)
        driver.receive(String(repeating: Self.get("/c"), count: 3))
        #expect(driver.readingStopped)
    }

    @Test func readingWaitsWhileTooMuchOutputIsQueued() {
        var machine = HTTPConnectionStateMachine(configuration: {
            var configuration = ServerConfiguration()
            configuration.maxQueuedOutputBytes = 100
            return configuration
        }())
        let overQueued = machine.readingAfterWrite(queuedOutputBytes: 101, now: .zero)
        let stillOver = machine.readingAfterWrite(queuedOutputBytes: 101, now: .zero)
        let atLimit = machine.readingAfterWrite(queuedOutputBytes: 100, now: .seconds(1))
        let reading = machine.readingAfterWrite(queuedOutputBytes: 0, now: .seconds(1))
        #expect(overQueued == .stop(timer: .arm(after: .seconds(60))), "the write timeout")
        #expect(stillOver == .stop(timer: .none))
        #expect(atLimit == .start(timer: .arm(after: .seconds(60))), "idle again")
        #expect(reading == .start(timer: .none))
        _ = Array(Self.get("/a").utf8).withUnsafeBytes { machine.received($0) }
        let parsed = machine.parseNext(now: .zero)
        let whileAnswering = machine.readingAfterWrite(queuedOutputBytes: 0, now: .zero)
        #expect(parsed == .request)
        #expect(whileAnswering == .none, "answering: reading resumes after the answer")
    }

    /// While reading is paused because the client leaves too much output untaken, the client is
    /// not the one late with its request: the read timeout stops, and goes on with what it had
    /// left once reading resumes. It kept running, and gave a 408 for a request that waited
    /// unread in the server's receive queue.
    @Test func theReadTimeoutStopsWhileReadingIsPausedForOutput() {
        var driver = ConnectionMachineDriver {
            $0.requestReadTimeout = .seconds(10)
            $0.idleTimeout = .seconds(60)
            $0.maxQueuedOutputBytes = 1 << 20
        }
        driver.receive(Self.get("/a") + "GET /b HTTP/1.1\r\nHo")
        driver.advance(to: .seconds(1))
        driver.answer()
        #expect(driver.timerDeadline == .seconds(11), "the read timeout of /b")
        driver.advance(to: .seconds(2))
        driver.wrote(queuedOutputBytes: 2 << 20)
        #expect(driver.readingStopped)
        let early = driver.machine.timerFired(now: .seconds(10))
        #expect(early == .arm(after: .seconds(52)), "only the write timeout runs while paused")
        driver.advance(to: .seconds(30))
        #expect(driver.events == ["request /a", "answered /a"], "no 408 while reading is paused")
        driver.wrote(queuedOutputBytes: 0)
        #expect(!driver.readingStopped)
        #expect(driver.timerDeadline == .seconds(39), "the 9 s the read timeout had left")
        driver.receive("st: t\r\n\r\n")
        driver.answer()
        #expect(driver.events == ["request /a", "answered /a", "request /b", "answered /b"])
    }

    /// What bounds a pause is the client not taking its output: the write timeout.
    @Test func aPauseForOutputTheClientNeverTakesEndsAtTheWriteTimeout() {
        var driver = ConnectionMachineDriver {
            $0.requestReadTimeout = .seconds(10)
            $0.idleTimeout = .seconds(60)
            $0.maxQueuedOutputBytes = 1 << 20
        }
        driver.receive(Self.get("/a") + "GET /b HTTP/1.1\r\nHo")
        driver.answer()
        driver.advance(to: .seconds(2))
        driver.wrote(queuedOutputBytes: 2 << 20)
        #expect(driver.timerDeadline == .seconds(62))
        driver.advance(to: .seconds(62))
        #expect(driver.events == ["request /a", "answered /a", "closed at 62.0 seconds"])
        #expect(driver.state == .closed)
    }

    @Test func expectContinueIsAnsweredOnlyWhenTheBodyHasNotCome() {
        var waiting = ConnectionMachineDriver()
        waiting.receive("POST /p HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
        #expect(waiting.sentContinue)
        waiting.receive("hi")
        #expect(waiting.answering?.body == Array("hi".utf8))

        var eager = ConnectionMachineDriver()
        eager.receive("POST /p HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nhi")
        #expect(!eager.sentContinue)
        #expect(eager.answering?.body == Array("hi".utf8))
    }

    @Test func malformedBytesAreRefusedAndTheConnectionCloses() {
        var driver = ConnectionMachineDriver()
        driver.receive("GET / HTTP/1.1\r\nBad Header\r\n\r\n")
        #expect(driver.events == ["refused 400"])
        #expect(driver.state == .closed)
        driver.receive(Self.get("/after"))
        #expect(driver.events == ["refused 400"], "nothing is read after a refusal")
    }

    @Test func aRefusalAfterTheHeadKeepsTheHead() {
        var driver = ConnectionMachineDriver { $0.limits.maxBodyBytes = 4 }
        driver.receive("POST /big HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\n")
        #expect(driver.events == ["refused 413"])
        let head = driver.machine.takeRefusedHead()
        #expect(head?.path == "/big")
    }

    @Test func drainingClosesAnIdleConnectionAtOnce() {
        var driver = ConnectionMachineDriver()
        #expect(driver.drain() == .close)
    }

    @Test func drainingAnswersWhatWasReceivedThenCloses() {
        var driver = ConnectionMachineDriver()
        driver.receive(Self.get("/a") + Self.get("/b"))
        #expect(driver.drain() == .none, "a busy connection closes after its answers")
        driver.answer()
        driver.answer()
        #expect(driver.events == ["request /a", "answered /a", "request /b", "answered /b, closing"])
        #expect(driver.state == .closed)
    }

    /// The parser consumes whole lines, so a request whose first lines came complete leaves
    /// nothing in `inbound`: the connection looked idle, and a shutdown closed it unanswered.
    @Test func drainingKeepsARequestWhoseHeadHasBegun() {
        var driver = ConnectionMachineDriver()
        driver.receive("GET /a HTTP/1.1\r\nHost: t\r\n")
        #expect(driver.machine.inbound.isEmpty)
        #expect(driver.drain() == .none)
        driver.receive("\r\n")
        driver.answer()
        #expect(driver.events == ["request /a", "answered /a, closing"])
    }

    @Test func drainingClosesAConnectionThatReceivedOnlyEmptyLines() {
        var driver = ConnectionMachineDriver()
        driver.receive(Self.get("/a") + "\r\n")
        driver.answer()
        #expect(driver.drain() == .close)
    }

    /// An answer given before the shutdown and still queued for a client that has not read it
    /// yet is written before the connection closes, under the write timeout; the drain closed
    /// the connection at once, and the answer was lost.
    @Test func drainingAnIdleConnectionWithQueuedOutputClosesItOnceWritten() {
        var driver = ConnectionMachineDriver { $0.idleTimeout = .seconds(60) }
        driver.receive(Self.get("/a"))
        driver.answer()
        driver.advance(to: .seconds(5))
        #expect(driver.drain(queuedOutputBytes: 1000) == .closeAfterWriting(timer: .arm(after: .seconds(60))))
        #expect(driver.state == .closed)
        driver.receive(Self.get("/b"))
        #expect(driver.events == ["request /a", "answered /a"], "nothing more is read")
        driver.advance(to: .seconds(65))
        #expect(driver.events.last == "closed at 65.0 seconds")
    }

    /// Reading paused for that output: its write deadline already runs, and the drain keeps it.
    @Test func drainingKeepsTheWriteDeadlineOfOutputThatPausedReading() {
        var driver = ConnectionMachineDriver {
            $0.idleTimeout = .seconds(60)
            $0.maxQueuedOutputBytes = 1 << 20
        }
        driver.receive(Self.get("/a"))
        driver.answer()
        driver.advance(to: .seconds(2))
        driver.wrote(queuedOutputBytes: 2 << 20)
        driver.advance(to: .seconds(5))
        #expect(driver.drain(queuedOutputBytes: 2 << 20) == .closeAfterWriting(timer: .none))
        #expect(driver.timerDeadline == .seconds(62))
    }

    enum LeftAtGraceEnd: CaseIterable {
        case lastAnswerQueued, requestBeingAnswered, requestArriving, outputPausingReading
    }

    /// Once a shutdown's grace period has ended, whatever a connection still has to write (an
    /// answer given before, or the 503 it is given then) has `shutdownWriteTimeout`, not the
    /// write timeout: a client that never read held the shutdown for the idle timeout past the
    /// grace period, longer than Kubernetes waits before it kills the process.
    @Test(arguments: LeftAtGraceEnd.allCases)
    func afterTheGracePeriodOutputHasOnlyTheShutdownWriteTimeout(_ left: LeftAtGraceEnd) {
        var driver = ConnectionMachineDriver {
            $0.requestReadTimeout = .seconds(30)
            $0.idleTimeout = .seconds(60)
            $0.shutdownWriteTimeout = .seconds(1)
            $0.maxQueuedOutputBytes = 1 << 20
        }
        switch left {
        case .lastAnswerQueued:
            driver.receive(Self.get("/a", "Connection: close\r\n"))
            driver.answer()
        case .requestBeingAnswered:
            driver.receive(Self.get("/a"))
        case .requestArriving:
            driver.receive("GET /a HTTP/1.1\r\n")
        case .outputPausingReading:
            driver.receive(Self.get("/a"))
            driver.answer()
            driver.wrote(queuedOutputBytes: 2 << 20)
        }
        driver.advance(to: .seconds(10))
        driver.endGrace()
        #expect(driver.state == .closed)
        #expect(driver.timerDeadline == .seconds(11))
        driver.advance(to: .seconds(11))
        #expect(driver.events.last == "closed at 11.0 seconds")
    }

    /// A write deadline already nearer than the bound stays where it was.
    @Test func theGraceEndNeverPutsOffAWriteDeadline() {
        var driver = ConnectionMachineDriver {
            $0.idleTimeout = .seconds(5)
            $0.shutdownWriteTimeout = .seconds(1)
        }
        driver.receive(Self.get("/a", "Connection: close\r\n"))
        driver.answer()
        driver.advance(to: .milliseconds(4500))
        driver.endGrace()
        #expect(driver.timerDeadline == .seconds(5))
        driver.advance(to: .seconds(5))
        #expect(driver.events == ["request /a", "answered /a, closing", "closing after writing", "closed at 5.0 seconds"])
    }

    @Test func theServerDrainingEndsTheConnectionWithItsNextAnswer() {
        var driver = ConnectionMachineDriver()
        driver.receive(Self.get("/a"))
        driver.answer(draining: true)
        #expect(driver.events == ["request /a", "answered /a, closing"])
    }

    @Test func anAnswerAfterTheConnectionClosedIsDropped() {
        var driver = ConnectionMachineDriver()
        driver.receive(Self.get("/a"))
        driver.machine.closing()
        driver.answer()
        #expect(driver.events == ["request /a", "dropped /a"])
    }

    @Test func aTimerFiringAfterCloseDoesNothing() {
        var machine = HTTPConnectionStateMachine(configuration: ServerConfiguration())
        let armed = machine.armTimer(now: .zero)
        machine.closing()
        let fired = machine.timerFired(now: .seconds(60))
        #expect(armed == .arm(after: .seconds(60)))
        #expect(fired == .none)
    }
}
