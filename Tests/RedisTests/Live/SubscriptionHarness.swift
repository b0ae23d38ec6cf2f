import EventLoop
import Redis
import Testing
import TestSupport
import Timekeeping

/// A real `redis-server` with a password, one loop, and a started subscription to it whose
/// events and connection changes are recorded. `close()` shuts all of it down.
final class SubscriptionHarness: Sendable {
    /// A PING left unanswered for a moment on a busy test machine must not cost a
    /// resubscription the test does not expect.
    static let patientConfiguration = RedisSubscriberConfiguration(connectTimeout: .seconds(10), pingTimeout: .seconds(30))

    let server: RedisServer
    let group: EventLoopGroup
    let observer = RecordingObserver()
    let subscription: RedisSubscription

    /// Subscribes to `channels` with `password` (the server's is "pw").
    init(password: String = "pw", channels: [String], configuration: RedisSubscriberConfiguration = patientConfiguration) throws {
        server = try RedisServer(password: "pw")
        group = try EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]
        let observer = observer
        subscription = RedisSubscription(
            url: RedisURL(host: "127.0.0.1", port: server.port, password: password), channels: channels, loop: loop,
            configuration: configuration, time: ClockTimeSource(), observer: observer.asObserver
        ) { event in
            #expect(loop.inLoop, "events come on the subscription's loop")
            observer.record(event)
        }
        subscription.start()
    }

    var events: [RedisSubscriptionEvent] { observer.events }

    func close() async {
        await subscription.shutdown()
        group.shutdown()
        server.stop()
    }
}
