import PureTestSupport
import RESP
import Redis
import Testing
import TestSupport

/// The subscriber connection against a real `redis-server`.
@Suite("Redis subscription against a real Redis", .timeLimit(.minutes(1)))
struct RedisSubscriptionLiveTests {
    @Test func receivesMessagesAndResubscribesAfterItsConnectionIsKilled() async throws {
        let redis = try SubscriptionHarness(channels: ["invalidations", "other"])
        let (server, observer, subscription) = (redis.server, redis.observer, redis.subscription)
        await eventually(.live, "subscribed") { subscription.isSubscribed }
        #expect(redis.events == [.subscribed(isResubscription: false)])

        let raw = try RawRedis(server)
        _ = try await raw.call("AUTH", "pw")
        #expect(try await raw.call("SPUBLISH", "invalidations", .bytes([0, 1, 255])).integer == 1)
        #expect(try await raw.call("SPUBLISH", "other", "second").integer == 1)
        await eventually(.live, "both messages") { redis.events.count == 3 }
        #expect(redis.events.dropFirst() == [
            .message(channel: "invalidations", payload: [0, 1, 255]),
            .message(channel: "other", payload: Array("second".utf8)),
        ])

        #expect(try await raw.call("CLIENT", "KILL", "TYPE", "pubsub").integer == 1)
        await eventually(.live, "resubscribed") { redis.events.last == .subscribed(isResubscription: true) }
        let afterKill = Array(redis.events.dropFirst(3))
        #expect(afterKill.count == 2)
        if case .disconnected(let error) = afterKill.first {
            #expect(error == .connectionLost)
        } else {
            Issue.record("expected disconnected first, got \(afterKill)")
        }
        #expect(try await raw.call("SPUBLISH", "invalidations", "again").integer == 1)
        await eventually(.live, "a message after resubscribing") { redis.events.last == .message(channel: "invalidations", payload: Array("again".utf8)) }

        #expect(observer.changes.first == .connected(.subscriber))
        #expect(observer.changes.contains(.disconnected(.subscriber, .connectionLost)))
        #expect(observer.changes.last == .connected(.subscriber))

        await redis.close()
        #expect(!subscription.isSubscribed)
        #expect(redis.events.last == .disconnected(.shutdown))
    }

    @Test func aFrozenServerIsNoticedByPingAndTheSubscriptionReturnsAfterThaw() async throws {
        let redis = try SubscriptionHarness(
            channels: ["invalidations"],
            configuration: RedisSubscriberConfiguration(connectTimeout: .milliseconds(500), pingInterval: .milliseconds(100), pingTimeout: .milliseconds(300)))
        await eventually(.live, "subscribed") { redis.subscription.isSubscribed }
        redis.server.freeze()
        await eventually(.live, "the unanswered PING ended the subscription") {
            redis.events.contains { if case .disconnected(.unresponsive) = $0 { true } else { false } }
        }
        #expect(!redis.subscription.isSubscribed)
        redis.server.thaw()
        await eventually(.live, "resubscribed after thaw") { redis.subscription.isSubscribed }
        #expect(redis.events.last == .subscribed(isResubscription: true))
        await redis.close()
    }

    @Test func aWrongPasswordIsRefusedOnceAndNotRetried() async throws {
        let redis = try SubscriptionHarness(password: "nope", channels: ["invalidations"])
        let observer = redis.observer
        await eventually(.live, "refused") { !observer.changes.isEmpty }
        #expect(observer.changes == [.connectAttemptFailed(.subscriber, .authenticationFailed)])
        try await Task.sleep(for: .milliseconds(300))
        #expect(observer.changes.count == 1)
        #expect(redis.events.isEmpty)
        await redis.close()
    }
}
