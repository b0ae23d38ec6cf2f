import PureTestSupport
import RESP
import Redis
import Testing

@Suite("Subscriber: PING health check and resubscription")
struct SubscriberHealthTests {
    @Test func pongKeepsTheConnectionAlive() {
        var machine = subscribedMachine()
        var now = Duration.zero
        for _ in 0..<5 {
            now += .seconds(1)
            #expect(machine.timerFired(now: now) == [.write(pingCommand), .armTimer(at: now + ms(500))])
            #expect(machine.received(pongReply, now: now + ms(3)) == [.armTimer(at: now + ms(1003))])
            now += ms(3)
        }
        #expect(machine.isSubscribed)
    }

    @Test func messagesDoNotStandInForThePong() {
        var machine = subscribedMachine()
        _ = machine.timerFired(now: .seconds(1))
        #expect(machine.received(message("pd:inv", "p1"), now: ms(1100)) == [.message(channel: "pd:inv", payload: wire("p1"))])
        #expect(machine.timerFired(now: ms(1500))
            == [.close, .disconnected(.unresponsive, reconnectAt: ms(1600)), .armTimer(at: ms(1600))])
    }

    @Test func missingPongReconnectsAndResubscribes() {
        var machine = subscribedMachine()
        #expect(machine.timerFired(now: .seconds(1)) == [.write(pingCommand), .armTimer(at: ms(1500))])
        #expect(machine.timerFired(now: ms(1499)) == [.armTimer(at: ms(1500))])
        #expect(machine.timerFired(now: ms(1500))
            == [.close, .disconnected(.unresponsive, reconnectAt: ms(1600)), .armTimer(at: ms(1600))])
        #expect(!machine.isSubscribed)
        // A late PONG from the dead connection changes nothing.
        #expect(machine.received(pongReply, now: ms(1550)) == [])

        #expect(machine.timerFired(now: ms(1600)) == [.connect(host: "redis.test", port: 6379), .armTimer(at: ms(2600))])
        #expect(machine.connected(now: ms(1601)) == [.write(accessCheck + subscribeCommand)])
        #expect(machine.received(accessGranted + bothConfirmed, now: ms(1602))
            == [.subscribed(isResubscription: true), .armTimer(at: ms(2602))])
    }

    @Test func killedConnectionResubscribesWithBackoffResetAfterSuccess() {
        var machine = subscribedMachine()
        // CLIENT KILL TYPE pubsub: the server closes the connection.
        #expect(machine.peerClosed(now: ms(100))
            == [.close, .disconnected(.connectionLost, reconnectAt: ms(200)), .armTimer(at: ms(200))])
        _ = machine.timerFired(now: ms(200))
        #expect(machine.connectFailed("ECONNREFUSED", now: ms(201))
            == [.close, .connectAttemptFailed(.connectFailed, reconnectAt: ms(401)), .armTimer(at: ms(401))])
        _ = machine.timerFired(now: ms(401))
        #expect(machine.connectFailed("ECONNREFUSED", now: ms(402))
            == [.close, .connectAttemptFailed(.connectFailed, reconnectAt: ms(802)), .armTimer(at: ms(802))])
        _ = machine.timerFired(now: ms(802))
        _ = machine.connected(now: ms(803))
        #expect(machine.received(accessGranted + bothConfirmed, now: ms(804)) == [.subscribed(isResubscription: true), .armTimer(at: ms(1804))])
        // The successful subscription reset the backoff: the next delay's ceiling is the base.
        #expect(machine.writeFailed("EPIPE", now: ms(900))
            == [.close, .disconnected(.connectionLost, reconnectAt: ms(1000)), .armTimer(at: ms(1000))])
    }

    @Test func seededJitterStaysWithinTheCeiling() {
        var machine = SubscriberMachine(url: plainURL, channels: ["c"], configuration: subscriberConfiguration, random: SeededRandom(seed: 9))
        var reference = SeededRandom(seed: 9)
        _ = machine.start(now: .zero)
        var now = Duration.zero
        for failures in 0..<6 {
            now += ms(1)
            let actions = machine.connectFailed("ECONNREFUSED", now: now)
            let expected = now + subscriberConfiguration.backoff.delay(afterFailures: failures, using: &reference)
            #expect(actions.contains(.connectAttemptFailed(.connectFailed, reconnectAt: expected)))
            #expect(expected - now <= subscriberConfiguration.backoff.ceiling(afterFailures: failures))
            now = expected
            _ = machine.timerFired(now: now)
        }
    }
}
