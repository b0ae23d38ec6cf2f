import RESP
import Redis
import Testing

@Suite("Subscriber: subscribing and messages")
struct SubscriberConnectionTests {
    @Test func logsInAndSubscribesAfterConnecting() {
        var machine = subscriberMachine(RedisURL(host: "redis.test", port: 6380, password: "pw", database: 4))
        #expect(machine.start(now: .zero) == [.connect(host: "redis.test", port: 6380), .armTimer(at: .seconds(1))])
        // AUTH and SUBSCRIBE in one write; no SELECT: channels belong to no database.
        #expect(machine.connected(now: ms(2)) == [.write(encoded(RESPCommand("AUTH", "pw")) + subscribeCommand)])
        #expect(machine.received(wire("+OK\r\n") + confirmation("pd:inv", count: 1), now: ms(3)) == [])
        #expect(!machine.isSubscribed)
        #expect(machine.received(confirmation("pd:all", count: 2), now: ms(4))
            == [.subscribed(isResubscription: false), .armTimer(at: ms(1004))])
        #expect(machine.isSubscribed)
    }

    /// Without a password, `PING` goes first: a server that wants one says `NOAUTH` to it, and
    /// the subscriber stops for good, as the command connections do.
    @Test func withoutPasswordAProtectedServerIsAnAuthenticationFailure() {
        var machine = subscriberMachine()
        _ = machine.start(now: .zero)
        #expect(machine.connected(now: ms(1)) == [.write(accessCheck + subscribeCommand)])
        let actions = machine.received(wire("-NOAUTH Authentication required.\r\n-NOAUTH Authentication required.\r\n"), now: ms(2))
        #expect(actions.first == .close)
        #expect(actions.contains(.connectAttemptFailed(.authenticationFailed, reconnectAt: nil)))
    }

    @Test func messagesAreDeliveredInOrder() {
        var machine = subscribedMachine()
        let bytes = message("pd:inv", "p1") + message("pd:all", "epoch-2") + message("pd:inv", "")
        #expect(machine.received(bytes, now: ms(5)) == [
            .message(channel: "pd:inv", payload: wire("p1")),
            .message(channel: "pd:all", payload: wire("epoch-2")),
            .message(channel: "pd:inv", payload: []),
        ])
    }

    @Test func messageArrivingBetweenConfirmationsIsDelivered() {
        var machine = subscriberMachine()
        _ = machine.start(now: .zero)
        _ = machine.connected(now: .zero)
        let bytes = accessGranted + confirmation("pd:inv", count: 1) + message("pd:inv", "p9") + confirmation("pd:all", count: 2)
        #expect(machine.received(bytes, now: ms(1))
            == [.message(channel: "pd:inv", payload: wire("p9")), .subscribed(isResubscription: false), .armTimer(at: ms(1001))])
    }

    @Test func otherPushKindsAreIgnored() {
        var machine = subscribedMachine()
        let pmessage = wire("*4\r\n$8\r\npmessage\r\n$2\r\np*\r\n$2\r\npx\r\n$1\r\nx\r\n")
        #expect(machine.received(pmessage + confirmation("pd:inv", count: 2), now: ms(1)) == [])
        #expect(machine.isSubscribed)
    }

    @Test func refusedAuthIsPermanent() {
        var machine = subscriberMachine(RedisURL(host: "h", password: "bad"))
        _ = machine.start(now: .zero)
        _ = machine.connected(now: .zero)
        #expect(machine.received(wire("-WRONGPASS invalid username-password pair\r\n-NOAUTH Authentication required.\r\n"), now: ms(1))
            == [.close, .connectAttemptFailed(.authenticationFailed, reconnectAt: nil), .cancelTimer])
        #expect(machine.timerFired(now: .seconds(30)) == [])
    }

    @Test func serverWantingAPasswordIsPermanent() {
        var machine = subscriberMachine()
        _ = machine.start(now: .zero)
        _ = machine.connected(now: .zero)
        #expect(machine.received(wire("-NOAUTH Authentication required.\r\n"), now: ms(1))
            == [.close, .connectAttemptFailed(.authenticationFailed, reconnectAt: nil), .cancelTimer])
    }

    @Test func subscriptionNotConfirmedInTimeIsRetried() {
        var machine = subscriberMachine()
        _ = machine.start(now: .zero)
        _ = machine.connected(now: ms(10))
        _ = machine.received(confirmation("pd:inv", count: 1), now: ms(11))
        #expect(machine.timerFired(now: .seconds(1))
            == [.close, .connectAttemptFailed(.connectTimeout, reconnectAt: ms(1100)), .armTimer(at: ms(1100))])
    }

    @Test func brokenReplyClosesAndReconnects() {
        var machine = subscribedMachine()
        #expect(machine.received(wire("*3\r\n$7\r\nmessage\r\n$x\r\n"), now: ms(5))
            == [.close, .disconnected(.protocolError, reconnectAt: ms(105)), .armTimer(at: ms(105))])
    }

    @Test func messageOverTheReplySizeLimitClosesAndReconnects() {
        var configuration = subscriberConfiguration
        configuration.replyLimits = RESPLimits(maxReplyBytes: 4096)
        var machine = SubscriberMachine(
            url: plainURL, channels: ["pd:inv", "pd:all"], configuration: configuration, random: FixedRandom(value: .max))
        _ = machine.start(now: .zero)
        _ = machine.connected(now: .zero)
        _ = machine.received(accessGranted + bothConfirmed, now: .zero)
        #expect(machine.received(message("pd:inv", String(repeating: "p", count: 4096)), now: ms(5))
            == [.close, .disconnected(.protocolError, reconnectAt: ms(105)), .armTimer(at: ms(105))])
    }

    @Test func shutdownReportsTheEndOfTheSubscription() {
        var machine = subscribedMachine()
        #expect(machine.shutdown(now: ms(5)) == [.close, .disconnected(.shutdown, reconnectAt: nil), .cancelTimer])
        #expect(machine.received(message("pd:inv", "p1"), now: ms(6)) == [])
        #expect(machine.timerFired(now: .seconds(5)) == [])
    }
}
