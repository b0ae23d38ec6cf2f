import EventLoop
import Timekeeping

/// The process's subscriber connection: subscribes to `channels` on `loop`, checks the
/// connection with `PING`, resubscribes after any loss, and tells `onEvent` (on `loop`'s
/// thread, inline: it must be quick) every subscription, message and disconnection.
package final class RedisSubscription: Sendable {
    package let url: RedisURL
    package let channels: [String]
    private let connection: RedisSubscriberConnection

    /// `channels` must not be empty.
    package init(
        url: RedisURL, channels: [String], loop: EventLoop, configuration: RedisSubscriberConfiguration = .init(),
        time: any TimeSource, observer: RedisClientObserver = RedisClientObserver(),
        onEvent: @escaping @Sendable (RedisSubscriptionEvent) -> Void
    ) {
        self.url = url
        self.channels = channels
        connection = RedisSubscriberConnection(
            url: url, channels: channels, loop: loop, configuration: configuration, time: time, observer: observer, onEvent: onEvent)
    }

    /// Connects and subscribes; reconnects with full-jitter backoff until `shutdown`.
    package func start() {
        let connection = connection
        connection.loop.execute { connection.start() }
    }

    /// Whether every channel is subscribed now (no message is being missed).
    package var isSubscribed: Bool {
        connection.subscribed.load(ordering: .relaxed)
    }

    /// Closes the connection for good (reported as `disconnected(.shutdown)` if subscribed).
    package func shutdown() async {
        let connection = connection
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            if !connection.loop.execute({ connection.shutdown(continuation) }) { continuation.resume() }
        }
    }
}
