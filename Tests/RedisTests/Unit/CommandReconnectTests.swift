import PureTestSupport
import RESP
import Redis
import Testing

@Suite("Command connection: reconnecting")
struct CommandReconnectTests {
    /// Fails `count` connection attempts in a row, each refused 1 ms after it began, and
    /// returns each scheduled delay.
    private func failAttempts(_ machine: inout CommandMachine, count: Int, from start: Duration) -> [Duration] {
        var now = start
        var delays: [Duration] = []
        for _ in 0..<count {
            now += ms(1)
            let actions = machine.connectFailed("ECONNREFUSED", now: now)
            guard case .connectAttemptFailed(let error, let at?) = actions.dropLast().last else {
                Issue.record("no retry scheduled: \(actions)")
                return delays
            }
            #expect(error == .connectFailed)
            #expect(actions.last == .armTimer(at: at))
            delays.append(at - now)
            now = at
            #expect(machine.timerFired(now: now).first == .connect(host: "redis.test", port: 6379))
        }
        return delays
    }

    @Test func backoffCeilingDoublesToTheCapAndResetsAfterAHandshake() {
        var machine = commandMachine()
        _ = machine.start(now: .zero)
        // The generator draws the top of each range: every delay is its ceiling.
        #expect(failAttempts(&machine, count: 6, from: .zero) == [100, 200, 400, 800, 1000, 1000].map(ms))

        // Six attempts, each refused after 1 ms: the seventh began at 3,506 ms.
        #expect(machine.connected(now: ms(3507)) == [.write(accessCheck)])
        #expect(machine.received(accessGranted, now: ms(3507)) == [.connected, .cancelTimer])
        let lost = machine.peerClosed(now: ms(3600))
        #expect(lost == [.close, .disconnected(.connectionLost, reconnectAt: ms(3700)), .armTimer(at: ms(3700))])
    }

    @Test func seededJitterIsExactAndWithinEachCeiling() {
        let backoff = testConfiguration.backoff
        var machine = commandMachine(random: SeededRandom(seed: 2026))
        var reference = SeededRandom(seed: 2026)
        _ = machine.start(now: .zero)
        let delays = failAttempts(&machine, count: 8, from: .zero)
        #expect(delays.count == 8)
        for (failures, delay) in delays.enumerated() {
            #expect(delay == backoff.delay(afterFailures: failures, using: &reference))
            #expect(delay >= .zero && delay <= backoff.ceiling(afterFailures: failures))
        }
        // Full jitter: the draws are not the ceilings.
        #expect(delays != (0..<8).map { backoff.ceiling(afterFailures: $0) })
    }

    @Test func requestsFailFastWhileWaitingToReconnect() {
        var machine = commandMachine()
        _ = machine.start(now: .zero)
        _ = machine.connectFailed("ECONNREFUSED", now: ms(1))
        let request = machine.get("k", deadline: ms(300), now: ms(2))
        #expect(request.actions == [.fail(request.id, .notConnected)])
        #expect(machine.pendingCount == 0)
    }

    /// The wait is said in whole milliseconds, rounded up ("in 0.152029433 seconds" reached a
    /// `DELETE /cache` answer).
    @Test func aFastFailureSaysWhenTheNextAttemptIsInMilliseconds() throws {
        var machine = commandMachine()
        _ = machine.start(now: .zero)
        let attempts = machine.connectFailed("ECONNREFUSED", now: ms(1)).compactMap { action -> Duration? in
            if case .connectAttemptFailed(_, let at?) = action { return at }
            return nil
        }
        let reconnectAt = try #require(attempts.first)
        let request = machine.get("k", deadline: reconnectAt, now: reconnectAt - .nanoseconds(52_029_433))
        guard case .fail(_, let error)? = request.actions.first else {
            Issue.record("not failed at once: \(request.actions)")
            return
        }
        #expect(error.detail == "Not connected to Redis; the next attempt is in 53 ms.")
    }

    @Test func requestsQueueWhileConnectingWithinTheirDeadlines() {
        var machine = commandMachine()
        _ = machine.start(now: .zero)
        let early = machine.get("early", deadline: ms(50), now: ms(1))
        let patient = machine.get("patient", deadline: ms(400), now: ms(2))
        #expect(early.actions == [.armTimer(at: ms(50))])
        #expect(patient.actions == [])
        // The short deadline passes before the connection opens: that caller fails then, and
        // its command is never written.
        #expect(machine.timerFired(now: ms(50)) == [.fail(early.id, .timedOut), .armTimer(at: ms(400))])
        #expect(machine.connected(now: ms(60)) == [.write(accessCheck)])
        #expect(machine.received(accessGranted, now: ms(60)) == [.connected, .write(encoded(RESPCommand("GET", "patient")))])
        #expect(machine.received(wire("+P\r\n"), now: ms(61)) == [.succeed(patient.id, .simpleString(wire("P"))), .cancelTimer])
    }

    @Test func queuedRequestsFailWhenTheAttemptFails() {
        var machine = commandMachine()
        _ = machine.start(now: .zero)
        let queued = machine.get("k", deadline: ms(400), now: ms(1))
        #expect(machine.connectFailed("ECONNREFUSED", now: ms(2))
            == [.close, .fail(queued.id, .connectFailed), .connectAttemptFailed(.connectFailed, reconnectAt: ms(102)), .armTimer(at: ms(102))])
    }

    @Test func requestsBeforeStartFail() {
        var machine = commandMachine()
        let request = machine.get("k", deadline: ms(300), now: .zero)
        #expect(request.actions == [.fail(request.id, .notConnected)])
    }

    @Test func eachRequestGetsItsOwnID() {
        var machine = readyCommandMachine()
        let ids = (0..<3).map { _ in machine.get("k", deadline: ms(300), now: .zero).id }
        #expect(Set(ids).count == 3)
        #expect(ids == ids.sorted())
    }
}
