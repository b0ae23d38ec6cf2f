import EventLoop
import Locking
import RESP
import Redis
import RedisClient
import Testing
import TestSupport
import Timekeeping

/// The subscriber connection against a real `redis-server`.
@Suite("Redis subscription against a real Redis", .timeLimit(.minutes(1)))
struct RedisSubscriptionLiveTests {
    /// Collects what the subscription reports, and checks it comes on the subscription's loop.
    final class Events: Sendable {
        private let events = Locked<[RedisSubscriptionEvent]>([])
        let loop: EventLoop

        init(loop: EventLoop) { self.loop = loop }

        func record(_ event: RedisSubscriptionEvent) {
            #expect(loop.inLoop)
            events.withLock { $0.append(event) }
        }

        var all: [RedisSubscriptionEvent] { events.withLock { $0 } }
    }

    /// A PING left unanswered for a moment on a busy test machine must not cost a resubscription
    /// the test does not expect.
    static let patientConfiguration = RedisSubscriberConfiguration(connectTimeout: .seconds(10), pingTimeout: .seconds(30))

    @Test func receivesMessagesAndResubscribesAfterItsConnectionIsKilled() async throws {
        let server = try RedisServer(password: "pw")
        let group = try EventLoopGroup(loopCount: 1)
        let observer = RecordingObserver()
        let events = Events(loop: group.loops[0])
        let subscription = RedisSubscription(
            url: RedisURL(host: "127.0.0.1", port: server.port, password: "pw"), channels: ["invalidations", "other"],
            loop: group.loops[0], configuration: Self.patientConfiguration, time: ClockTimeSource(), observer: observer, onEvent: events.record)
        subscription.start()
        try await eventually("subscribed") { subscription.isSubscribed }
        #expect(events.all == [.subscribed(isResubscription: false)])

        let raw = try RawRedis(server)
        _ = try await raw.call("AUTH", "pw")
        #expect(try await raw.call("PUBLISH", "invalidations", .bytes([0, 1, 255])).integer == 1)
        #expect(try await raw.call("PUBLISH", "other", "second").integer == 1)
        try await eventually("both messages") { events.all.count == 3 }
        #expect(events.all.dropFirst() == [
            .message(channel: "invalidations", payload: [0, 1, 255]),
            .message(channel: "other", payload: Array("second".utf8)),
        ])

        #expect(try await raw.call("CLIENT", "KILL", "TYPE", "pubsub").integer == 1)
        try await eventually("resubscribed") { events.all.last == .subscribed(isResubscription: true) }
        let afterKill = Array(events.all.dropFirst(3))
        #expect(afterKill.count == 2)
        if case .disconnected(let error) = afterKill.first {
            #expect(error == .connectionLost)
        } else {
            Issue.record("expected disconnected first, got \(afterKill)")
        }
        #expect(try await raw.call("PUBLISH", "invalidations", "again").integer == 1)
        try await eventually("a message after resubscribing") { events.all.last == .message(channel: "invalidations", payload: Array("again".utf8)) }

        #expect(observer.changes.first == .connected(.subscriber))
        #expect(observer.changes.contains(.disconnected(.subscriber, .connectionLost)))
        #expect(observer.changes.last == .connected(.subscriber))

        await subscription.shutdown()
        #expect(!subscription.isSubscribed)
        #expect(events.all.last == .disconnected(.shutdown))
        group.shutdown()
        server.stop()
    }

    @Test func aWrongPasswordIsRefusedOnceAndNotRetried() async throws {
        let server = try RedisServer(password: "pw")
        let group = try EventLoopGroup(loopCount: 1)
        let observer = RecordingObserver()
        let events = Events(loop: group.loops[0])
        let subscription = RedisSubscription(
            url: RedisURL(host: "127.0.0.1", port: server.port, password: "nope"), channels: ["invalidations"],
            loop: group.loops[0], configuration: Self.patientConfiguration, time: ClockTimeSource(), observer: observer, onEvent: events.record)
        subscription.start()
        try await eventually("refused") { !observer.changes.isEmpty }
        #expect(observer.changes == [.connectAttemptFailed(.subscriber, .authenticationFailed)])
        try await Task.sleep(for: .milliseconds(300))
        #expect(observer.changes.count == 1)
        #expect(events.all.isEmpty)
        await subscription.shutdown()
        group.shutdown()
        server.stop()
    }
}
