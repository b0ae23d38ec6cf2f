import RESP
import Redis
import Testing

@Suite("Command connection: pipelining, deadlines and late replies")
struct CommandPipelineTests {
    @Test func commandsAreWrittenInOrderAndRepliesMatchedFirstInFirstOut() {
        var machine = readyCommandMachine()
        let a = machine.get("a", deadline: ms(500), now: ms(1))
        let b = machine.submit(.command(RESPCommand("INCR", "n")), deadline: ms(400), now: ms(2))
        let c = machine.submit(.command(RESPCommand("HGET", "h", "f")), deadline: ms(600), now: ms(3))
        #expect(a.actions == [.write(encoded(RESPCommand("GET", "a"))), .armTimer(at: ms(500))])
        #expect(b.actions == [.write(encoded(RESPCommand("INCR", "n"))), .armTimer(at: ms(400))])
        #expect(c.actions == [.write(encoded(RESPCommand("HGET", "h", "f")))])
        #expect(machine.pendingCount == 3)

        let replies = wire("$2\r\nva\r\n:7\r\n$-1\r\n")
        // Byte by byte: a reply split across reads is matched once complete.
        var actions: [CommandMachine.Action] = []
        for byte in replies { actions += machine.received([byte], now: ms(10)) }
        #expect(actions == [
            .succeed(a.id, .bulkString(wire("va"))),
            .succeed(b.id, .integer(7)), .armTimer(at: ms(600)),
            .succeed(c.id, .null), .cancelTimer,
        ])
        #expect(machine.pendingCount == 0)
    }

    /// A submission appends its actions to the shell's buffer, after what it holds; a request
    /// its caller encoded is written as that very buffer, not a copy of it.
    @Test func aSubmissionAppendsItsActionsAndWritesAnEncodedRequestAsItIs() throws {
        var machine = readyCommandMachine()
        let bytes = encoded(RESPCommand("GET", "a"))
        var actions: [CommandMachine.Action] = [.cancelTimer]
        let id = machine.submit(.encoded(bytes, leadingReplies: 0, routingKey: nil), deadline: ms(500), now: ms(1), into: &actions)
        #expect(actions == [.cancelTimer, .write(bytes), .armTimer(at: ms(500))])
        guard case .write(let written) = actions[1] else { throw CancellationError() }
        #expect(written.withUnsafeBufferPointer { $0.baseAddress } == bytes.withUnsafeBufferPointer { $0.baseAddress })
        #expect(machine.received(wire("$1\r\nx\r\n"), now: ms(2)) == [.succeed(id, .bulkString(wire("x"))), .cancelTimer])
    }

    @Test func errorRepliesAreRepliesOfTheirCommand() {
        var machine = readyCommandMachine()
        let a = machine.get("a", deadline: ms(500), now: ms(1))
        let b = machine.get("b", deadline: ms(500), now: ms(1))
        #expect(machine.received(wire("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n+OK\r\n"), now: ms(2))
            == [.succeed(a.id, .simpleError(wire("WRONGTYPE Operation against a key holding the wrong kind of value"))),
                .succeed(b.id, .simpleString(wire("OK"))), .cancelTimer])
    }

    @Test func timedOutCommandFailsAtOnceAndItsLateReplyIsThrownAway() {
        var machine = readyCommandMachine()
        let slow = machine.get("slow", deadline: ms(100), now: .zero)
        let next = machine.get("next", deadline: ms(500), now: ms(50))
        #expect(machine.timerFired(now: ms(100)) == [.fail(slow.id, .timedOut), .armTimer(at: ms(500))])
        // The slow reply arrives after its caller left: read, dropped, and the next caller
        // gets its own reply, not the slow one.
        #expect(machine.received(wire("$4\r\nSLOW\r\n"), now: ms(150)) == [])
        #expect(machine.received(wire("$4\r\nNEXT\r\n"), now: ms(151)) == [.succeed(next.id, .bulkString(wire("NEXT"))), .cancelTimer])
        #expect(machine.isConnected)
    }

    @Test func oldestReplyFarTooOldClosesAndFailsEveryWaitingCommand() {
        var machine = readyCommandMachine()
        let stuck = machine.get("stuck", deadline: ms(100), now: .zero)
        #expect(machine.timerFired(now: ms(100)) == [.fail(stuck.id, .timedOut), .armTimer(at: .seconds(2))])
        let waiting = machine.get("w", deadline: ms(2500), now: ms(1900))
        #expect(waiting.actions == [.write(encoded(RESPCommand("GET", "w")))])
        #expect(machine.timerFired(now: ms(1999)) == [.armTimer(at: .seconds(2))])
        #expect(machine.timerFired(now: .seconds(2)) == [
            .close, .fail(waiting.id, .unresponsive),
            .disconnected(.unresponsive, reconnectAt: ms(2100)), .armTimer(at: ms(2100)),
        ])
        #expect(!machine.isConnected)
        #expect(machine.timerFired(now: ms(2100)) == [.connect(host: "redis.test", port: 6379), .armTimer(at: ms(3100))])
    }

    @Test func aSlowButAnsweringServerIsNotClosed() {
        var machine = readyCommandMachine()
        _ = machine.get("a", deadline: ms(100), now: .zero)
        _ = machine.timerFired(now: ms(100))
        // The late reply comes before the limit: the next command starts a new clock.
        _ = machine.received(wire("+late\r\n"), now: ms(1500))
        let b = machine.get("b", deadline: ms(3000), now: ms(1600))
        #expect(b.actions == [.write(encoded(RESPCommand("GET", "b"))), .armTimer(at: ms(3000))])
        #expect(machine.timerFired(now: ms(3000)) == [.fail(b.id, .timedOut), .armTimer(at: ms(3600))])
    }

    @Test func timeoutIsCountedFromSubmission() {
        var machine = readyCommandMachine()
        let request = machine.submit(.command(RESPCommand("PING")), timeout: ms(250), now: ms(40))
        #expect(request.actions == [.write(encoded(RESPCommand("PING"))), .armTimer(at: ms(290))])
    }

    @Test func deadlineAlreadyPassedFailsWithoutWriting() {
        var machine = readyCommandMachine()
        let late = machine.get("k", deadline: ms(10), now: ms(10))
        #expect(late.actions == [.fail(late.id, .timedOut)])
        #expect(machine.pendingCount == 0)
    }

    @Test func pendingCommandsAreBounded() {
        var configuration = testConfiguration
        configuration.maxPendingCommands = 2
        var machine = readyCommandMachine(configuration: configuration)
        _ = machine.get("a", deadline: ms(100), now: .zero)
        _ = machine.get("b", deadline: ms(100), now: .zero)
        let third = machine.get("c", deadline: ms(100), now: .zero)
        #expect(third.actions == [.fail(third.id, .tooManyPending)])
        // Abandoned slots still count: their replies are still owed.
        _ = machine.timerFired(now: ms(100))
        let fourth = machine.get("d", deadline: ms(300), now: ms(100))
        #expect(fourth.actions == [.fail(fourth.id, .tooManyPending)])
    }

    @Test func brokenReplyClosesAndFailsPendingCommands() {
        var machine = readyCommandMachine()
        let a = machine.get("a", deadline: ms(500), now: .zero)
        let b = machine.get("b", deadline: ms(500), now: .zero)
        let actions = machine.received(wire("+OK\r\n?garbage\r\n"), now: ms(5))
        #expect(actions == [
            .succeed(a.id, .simpleString(wire("OK"))),
            .close, .fail(b.id, .protocolError), .disconnected(.protocolError, reconnectAt: ms(105)), .armTimer(at: ms(105)),
        ])
        guard case .fail(_, let error) = actions[2] else { return }
        #expect(error.detail.contains("not a RESP type"))
    }

    /// A reply too large as a whole is a protocol error like any other, even one owed to a
    /// command that already timed out: the connection closes and nobody is left waiting.
    @Test func replyOverTheSizeLimitClosesAndFailsPendingCommands() {
        var configuration = testConfiguration
        configuration.replyLimits = RESPLimits(maxReplyBytes: 4096)
        var machine = readyCommandMachine(configuration: configuration)
        let late = machine.get("late", deadline: ms(100), now: .zero)
        let waiting = machine.get("w", deadline: ms(500), now: .zero)
        #expect(machine.timerFired(now: ms(100)) == [.fail(late.id, .timedOut), .armTimer(at: ms(500))])
        let actions = machine.received(wire("*1048576\r\n" + String(repeating: "*1\r\n_\r\n", count: 100)), now: ms(150))
        #expect(actions == [
            .close, .fail(waiting.id, .protocolError), .disconnected(.protocolError, reconnectAt: ms(250)), .armTimer(at: ms(250)),
        ])
        guard actions.count > 1, case .fail(_, let error) = actions[1] else { return }
        #expect(error.detail.contains("total size"))
    }

    @Test func replyNobodyAskedForIsAProtocolError() {
        var machine = readyCommandMachine()
        #expect(machine.received(wire("+OK\r\n"), now: ms(1))
            == [.close, .disconnected(.protocolError, reconnectAt: ms(101)), .armTimer(at: ms(101))])
    }

    @Test func peerCloseAndWriteFailureFailWaitingCommands() {
        var machine = readyCommandMachine()
        let a = machine.get("a", deadline: ms(500), now: .zero)
        #expect(machine.peerClosed(now: ms(3)) == [
            .close, .fail(a.id, .connectionLost), .disconnected(.connectionLost, reconnectAt: ms(103)), .armTimer(at: ms(103)),
        ])
        // Events of the closed socket are ignored.
        #expect(machine.received(wire("+OK\r\n"), now: ms(4)) == [])
        #expect(machine.writeFailed("EPIPE", now: ms(4)) == [])

        var other = readyCommandMachine()
        let b = other.get("b", deadline: ms(500), now: .zero)
        #expect(other.writeFailed("EPIPE", now: ms(3)) == [
            .close, .fail(b.id, .connectionLost), .disconnected(.connectionLost, reconnectAt: ms(103)), .armTimer(at: ms(103)),
        ])
    }

    @Test func shutdownDrainsWrittenCommandsThenCloses() {
        var machine = readyCommandMachine()
        let a = machine.get("a", deadline: ms(500), now: .zero)
        #expect(machine.shutdown(now: ms(1)) == [])
        let refused = machine.get("b", deadline: ms(500), now: ms(2))
        #expect(refused.actions == [.fail(refused.id, .shutdown)])
        #expect(machine.received(wire(":1\r\n"), now: ms(3)) == [.succeed(a.id, .integer(1)), .close, .cancelTimer])
        #expect(machine.timerFired(now: .seconds(10)) == [])
    }

    @Test func connectionLostWhileDrainingDoesNotReconnect() {
        var machine = readyCommandMachine()
        let a = machine.get("a", deadline: ms(500), now: .zero)
        _ = machine.shutdown(now: ms(1))
        #expect(machine.peerClosed(now: ms(2))
            == [.close, .fail(a.id, .connectionLost), .disconnected(.connectionLost, reconnectAt: nil), .cancelTimer])
        #expect(machine.timerFired(now: .seconds(5)) == [])
    }

    @Test func shutdownWhileConnectingFailsQueuedRequests() {
        var machine = commandMachine()
        _ = machine.start(now: .zero)
        let queued = machine.get("k", deadline: ms(500), now: ms(1))
        #expect(machine.shutdown(now: ms(2)) == [.close, .fail(queued.id, .shutdown), .cancelTimer])
        #expect(machine.connected(now: ms(3)) == [])
    }

    @Test func aCancelledCommandKeepsItsPlaceAndItsReplyIsThrownAway() {
        var machine = readyCommandMachine()
        let a = machine.get("a", deadline: ms(500), now: ms(1))
        let b = machine.get("b", deadline: ms(600), now: ms(2))
        // The shell answered a's caller itself: only b's deadline is left to watch.
        #expect(machine.cancel(a.id, now: ms(3)) == [.armTimer(at: ms(600))])
        #expect(machine.pendingCount == 2)
        #expect(machine.received(wire("+A\r\n+B\r\n"), now: ms(4)) == [.succeed(b.id, .simpleString(wire("B"))), .cancelTimer])
        // Cancelling again, or an ID already answered, changes nothing.
        #expect(machine.cancel(a.id, now: ms(5)) == [])
        #expect(machine.cancel(b.id, now: ms(5)) == [])
    }

    @Test func aCancelledQueuedCommandIsNeverWritten() {
        var machine = commandMachine()
        #expect(machine.start(now: .zero) == [.connect(host: "redis.test", port: 6379), .armTimer(at: .seconds(1))])
        let first = machine.get("first", deadline: ms(500), now: ms(1))
        let second = machine.get("second", deadline: ms(800), now: ms(1))
        #expect(first.actions == [.armTimer(at: ms(500))])
        #expect(machine.cancel(first.id, now: ms(2)) == [.armTimer(at: ms(800))])
        #expect(machine.connected(now: ms(3)) == [.write(accessCheck)])
        #expect(machine.received(accessGranted, now: ms(3)) == [.connected, .write(encoded(RESPCommand("GET", "second")))])
        #expect(machine.received(wire("+S\r\n"), now: ms(4)) == [.succeed(second.id, .simpleString(wire("S"))), .cancelTimer])
    }

    @Test func drainingClosesWhenItsLastCallerIsCancelled() {
        var machine = readyCommandMachine()
        let a = machine.get("a", deadline: ms(500), now: ms(1))
        #expect(machine.shutdown(now: ms(2)) == [])
        #expect(!machine.isShutDown)
        #expect(machine.cancel(a.id, now: ms(3)) == [.close, .cancelTimer])
        #expect(machine.isShutDown)
    }
}
