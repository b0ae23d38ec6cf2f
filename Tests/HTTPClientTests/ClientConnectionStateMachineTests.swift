import HTTP1
@testable import HTTPClient
import Testing

/// One upstream connection's rules, stepped with bytes and times as plain values.
@Suite("Client connection state machine")
struct ClientConnectionStateMachineTests {
    private static let keepAliveAnswer = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi".utf8)

    private func feed(_ machine: inout ClientConnectionStateMachine, _ bytes: [UInt8]) -> ClientConnectionStateMachine.ReadAction {
        bytes.withUnsafeBytes { machine.received($0) }
    }

    private func answered(_ action: ClientConnectionStateMachine.ReadAction) -> (body: String, keepAlive: Bool)? {
        guard case .answered(let response, let keepAlive) = action else { return nil }
        return (String(decoding: response.body, as: UTF8.self), keepAlive)
    }

    private func failure(_ action: ClientConnectionStateMachine.ReadAction) -> ExchangeFailure? {
        guard case .failed(let failure) = action else { return nil }
        return failure
    }

    @Test(arguments: [false, true])
    func aKeepAliveAnswerCompletesWholeOrByteByByte(byteByByte: Bool) {
        var machine = ClientConnectionStateMachine(maxResponseBytes: 1024)
        machine.send(method: .get)
        var last = ClientConnectionStateMachine.ReadAction.none
        if byteByByte {
            for (index, byte) in Self.keepAliveAnswer.enumerated() {
                last = feed(&machine, [byte])
                if index < Self.keepAliveAnswer.count - 1 { #expect(answered(last) == nil) }
            }
        } else {
            last = feed(&machine, Self.keepAliveAnswer)
        }
        #expect(answered(last)?.body == "hi")
        #expect(answered(last)?.keepAlive == true)
        #expect(machine.state == .idle && machine.answered == 1)
    }

    @Test func connectionCloseOrBytesAfterTheAnswerMeanNoReuse() {
        var closing = ClientConnectionStateMachine(maxResponseBytes: 1024)
        closing.send(method: .get)
        let closed = feed(&closing, Array("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n".utf8))
        #expect(answered(closed)?.keepAlive == false)
        #expect(closing.state == .closed)

        var extra = ClientConnectionStateMachine(maxResponseBytes: 1024)
        extra.send(method: .get)
        #expect(answered(feed(&extra, Self.keepAliveAnswer + Array("HTTP/1.1".utf8)))?.keepAlive == false)
    }

    @Test func bytesOrAnEndWhileIdleCloseTheConnection() {
        var machine = ClientConnectionStateMachine(maxResponseBytes: 1024)
        if case .close = feed(&machine, Array("x".utf8)) {} else { Issue.record("unsolicited bytes must close") }
        #expect(machine.state == .closed)
        var ended = ClientConnectionStateMachine(maxResponseBytes: 1024)
        if case .close = ended.readEnded(.finished) {} else { Issue.record("an idle end must close") }
    }

    @Test func anAnswerFramedByTheEndOfTheStream() {
        var machine = ClientConnectionStateMachine(maxResponseBytes: 1024)
        machine.send(method: .get)
        #expect(answered(feed(&machine, Array("HTTP/1.1 200 OK\r\n\r\nbody".utf8))) == nil)
        let end = machine.readEnded(.finished)
        #expect(answered(end)?.body == "body")
        #expect(answered(end)?.keepAlive == false)
    }

    /// Only the peer's FIN frames an answer: after a read error the same bytes are a reset, named
    /// by the error the shell read.
    @Test func aReadErrorFailsEvenAnAnswerTheEndWouldFrame() {
        var machine = ClientConnectionStateMachine(maxResponseBytes: 1024)
        machine.send(method: .get)
        _ = feed(&machine, Array("HTTP/1.1 200 OK\r\n\r\nbody".utf8))
        let end = machine.readEnded(.failed(reason: "ECONNRESET: connection reset by peer"))
        #expect(failure(end) == .failed(.reset("connection failed: ECONNRESET: connection reset by peer")))
        #expect(machine.state == .closed)
    }

    /// A reused connection the server closed before answering a byte is stale (the request may go
    /// out again); on a new connection the same end is a reset.
    @Test func anEndBeforeAnyByteIsStaleOnlyOnAReusedConnection() {
        var reused = ClientConnectionStateMachine(maxResponseBytes: 1024)
        reused.send(method: .get)
        _ = feed(&reused, Self.keepAliveAnswer)
        reused.send(method: .get)
        #expect(failure(reused.readEnded(.finished)) == .stale)

        var fresh = ClientConnectionStateMachine(maxResponseBytes: 1024)
        fresh.send(method: .get)
        #expect(failure(fresh.readEnded(.finished)) == .failed(.reset("closed before answering")))
        #expect(fresh.state == .closed)
    }

    @Test func aShortBodyOrGarbageFails() {
        var short = ClientConnectionStateMachine(maxResponseBytes: 1024)
        short.send(method: .get)
        _ = feed(&short, Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab".utf8))
        #expect(failure(short.readEnded(.finished)).map { if case .failed = $0 { true } else { false } } == true)

        var garbage = ClientConnectionStateMachine(maxResponseBytes: 1024)
        garbage.send(method: .get)
        #expect(failure(feed(&garbage, Array("NOT HTTP\r\n\r\n".utf8))) == .failed(.malformed(.malformedStatusLine)))
    }

    /// The idle rule, exactly: a connection closes once it has been idle for the whole timeout,
    /// counted from when it last went back to the pool; the timer is armed once.
    @Test func anIdleConnectionClosesAfterExactlyTheTimeoutSinceItWasLastParked() {
        var machine = ClientConnectionStateMachine(maxResponseBytes: 1024)
        #expect(machine.parked(now: .seconds(0), idleTimeout: .seconds(10)) == .arm(after: .seconds(10)))
        machine.send(method: .get)
        _ = feed(&machine, Self.keepAliveAnswer)
        #expect(machine.parked(now: .seconds(7), idleTimeout: .seconds(10)) == .none, "armed once")
        #expect(machine.idleTimerFired(now: .seconds(10)) == .arm(after: .seconds(7)))
        #expect(machine.idleTimerFired(now: .milliseconds(16_999)) == .arm(after: .milliseconds(1)))
        #expect(machine.idleTimerFired(now: .seconds(17)) == .close)
        #expect(machine.state == .closed)
    }

    @Test func aConnectionInUseWhenTheTimerFiresWaitsAWholeTimeoutMore() {
        var machine = ClientConnectionStateMachine(maxResponseBytes: 1024)
        #expect(machine.parked(now: .zero, idleTimeout: .seconds(10)) == .arm(after: .seconds(10)))
        machine.send(method: .get)
        #expect(machine.idleTimerFired(now: .seconds(10)) == .arm(after: .seconds(10)))
        _ = feed(&machine, Self.keepAliveAnswer)
        #expect(machine.parked(now: .seconds(12), idleTimeout: .seconds(10)) == .none)
        #expect(machine.idleTimerFired(now: .seconds(20)) == .arm(after: .seconds(2)))
        #expect(machine.idleTimerFired(now: .seconds(22)) == .close)
    }
}
