import EventLoop
import Synchronization
import Timekeeping

/// The subscriber connection: `RedisSubscriberStateMachine` decides, the shell performs its
/// actions and hands subscriptions and messages to `onEvent`.
///
/// `@unchecked Sendable`: the shell's state is touched only on `loop`'s thread; `subscribed` is
/// an `Atomic`, read from anywhere; `observer` and `onEvent` are immutable.
final class RedisSubscriberConnection: RedisConnectionShell<RedisSubscriberStateMachine>, @unchecked Sendable {
    private let observer: (any RedisClientObserver)?
    private let onEvent: @Sendable (RedisSubscriptionEvent) -> Void
    /// Mirrors `machine.isSubscribed` for `RedisSubscription.isSubscribed`.
    let subscribed = Atomic<Bool>(false)

    init(
        url: RedisURL, channels: [String], loop: EventLoop, configuration: RedisSubscriberConfiguration,
        time: any TimeSource, observer: (any RedisClientObserver)?, onEvent: @escaping @Sendable (RedisSubscriptionEvent) -> Void
    ) {
        self.observer = observer
        self.onEvent = onEvent
        super.init(
            machine: RedisSubscriberStateMachine(url: url, channels: channels, configuration: configuration), loop: loop, time: time)
    }

    override func performOwn(_ action: RedisSubscriberStateMachine.Action) {
        switch action {
        case .socket:
            break
        case .subscribed(let isResubscription):
            subscribed.store(true, ordering: .relaxed)
            observer?.connectionChanged(.connected(.subscriber))
            onEvent(.subscribed(isResubscription: isResubscription))
        case .message(let channel, let payload):
            onEvent(.message(channel: channel, payload: payload))
        case .disconnected(let error, _):
            subscribed.store(false, ordering: .relaxed)
            observer?.connectionChanged(.disconnected(.subscriber, error))
            onEvent(.disconnected(error))
        case .connectAttemptFailed(let error, _):
            observer?.connectionChanged(.connectAttemptFailed(.subscriber, error))
        }
    }
}
