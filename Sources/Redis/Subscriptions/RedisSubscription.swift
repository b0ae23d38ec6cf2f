import EventLoop
import Timekeeping

/// The process's subscriber connection: subscribes to the shard channels `channels` on `loop`,
/// checks the connection with `PING`, resubscribes after any loss, and tells `onEvent` (on
/// `loop`'s thread, inline: it must be quick) every subscription, message and disconnection.
///
/// On a Redis Cluster every channel must be in one hash slot; each attempt connects to that
/// slot's master as `client`'s map has it (the URL's node without a client), and a `MOVED` is
/// followed and taught to the client.
package final class RedisSubscription: Sendable {
    package let url: RedisURL
    package let channels: [String]
    private let connection: RedisSubscriberConnection

    /// `channels` must not be empty.
    package init(
        url: RedisURL, channels: [String], loop: EventLoop, configuration: RedisSubscriberConfiguration = .init(),
        time: any TimeSource, observer: RedisClientObserver = RedisClientObserver(), client: RedisClient? = nil,
        onEvent: @escaping @Sendable (RedisSubscriptionEvent) -> Void
    ) {
        self.url = url
        self.channels = channels
        connection = RedisSubscriberConnection(
            url: url, channels: channels, loop: loop, configuration: configuration, time: time, observer: observer, client: client,
            onEvent: onEvent)
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

/// What a `RedisSubscription` tells its owner, on its loop thread.
package enum RedisSubscriptionEvent: Sendable, Equatable {
    /// Every channel is subscribed: no message is missed from now on. A resubscription follows
    /// a time when messages may have been missed (pub/sub delivers at most once).
    case subscribed(isResubscription: Bool)
    /// A message published on one of the channels.
    case message(channel: String, payload: [UInt8])
    /// The subscription ended: messages may be missed until the next `subscribed`.
    case disconnected(RedisClientError)
}
