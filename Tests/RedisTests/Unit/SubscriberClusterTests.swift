import RESP
import Testing
@testable import Redis

/// The subscriber on a Redis Cluster: shard channels live on their slot's master, which a
/// `MOVED` names and a reshard or failover changes.
@Suite("Subscriber: shard channels on a cluster")
struct SubscriberClusterTests {
    /// The node asked does not own the channels' slot: straight to the one named, no backoff
    /// (it is no failure), and the redirect reported for the client's map.
    @Test func movedIsFollowedAtOnceAndReported() {
        var machine = subscriberMachine()
        _ = machine.start(now: .zero)
        _ = machine.connected(now: ms(1))
        let owner = RedisNodeAddress(host: "10.0.0.3", port: 7002)
        let actions = machine.received(accessGranted + wire("-MOVED 8342 10.0.0.3:7002\r\n"), now: ms(2))
        #expect(actions == [
            .close, .redirected(.moved(slot: RedisHashSlot.of("pd:inv"), to: owner)), .connect(host: "10.0.0.3", port: 7002),
            .armTimer(at: ms(1002)),
        ])
        #expect(machine.node == owner)
        _ = machine.connected(now: ms(3))
        #expect(machine.received(accessGranted + bothConfirmed, now: ms(4)) == [.subscribed(isResubscription: false), .armTimer(at: ms(1004))])
    }

    /// `MOVED 8342 :7002`: the node did not know its own host; it is the one just asked.
    @Test func aMovedWithoutAHostMeansTheHostAsked() {
        var machine = subscriberMachine()
        _ = machine.start(now: .zero)
        _ = machine.connected(now: ms(1))
        let actions = machine.received(accessGranted + wire("-MOVED 8342 :7002\r\n"), now: ms(2))
        #expect(actions.contains(.connect(host: "redis.test", port: 7002)))
    }

    /// The slot left the node (a reshard, or a failover made it a replica): the server drops the
    /// subscription, and messages are missed from then on, as on a lost connection.
    @Test func anUnsubscribeNobodyAskedForEndsTheSubscription() {
        var machine = subscribedMachine()
        let dropped = wire("*3\r\n$12\r\nsunsubscribe\r\n$6\r\npd:inv\r\n:1\r\n")
        let actions = machine.received(dropped, now: ms(10))
        #expect(actions.first == .close)
        #expect(actions.contains { if case .disconnected(.connectionLost, .some) = $0 { true } else { false } })
        #expect(!machine.isSubscribed)
    }

    /// The owner sets where the channels live before an event that may connect.
    @Test func theNodeTheOwnerSetsIsWhereTheNextAttemptGoes() {
        var machine = subscriberMachine()
        machine.node = RedisNodeAddress(host: "10.0.0.9", port: 7009)
        #expect(machine.start(now: .zero).first == .connect(host: "10.0.0.9", port: 7009))
    }
}
