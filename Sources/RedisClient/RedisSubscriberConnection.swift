import EventLoop
import Redis
import Synchronization
import Timekeeping

/// The subscriber connection's shell: `RedisSubscriberStateMachine` decides, this performs its
/// actions on a `RedisSocket` and hands subscriptions and messages to `onEvent`.
///
/// `@unchecked Sendable`: `machine`, `socket` and `shutdownWaiters` are touched only on `loop`'s
/// thread; `subscribed` is an `Atomic`, read from anywhere; the rest is immutable.
final class RedisSubscriberConnection: @unchecked Sendable {
    let loop: EventLoop
    private let time: any TimeSource
    private let observer: (any RedisClientObserver)?
    private let onEvent: @Sendable (RedisSubscriptionEvent) -> Void
    /// Mirrors `machine.isSubscribed` for `RedisSubscription.isSubscribed`.
    let subscribed = Atomic<Bool>(false)
    private var machine: RedisSubscriberStateMachine
    private let socket: RedisSocket
    private var shutdownWaiters: [UnsafeContinuation<Void, Never>] = []

    init(
        url: RedisURL, channels: [String], loop: EventLoop, configuration: RedisSubscriberConfiguration,
        time: any TimeSource, observer: (any RedisClientObserver)?, onEvent: @escaping @Sendable (RedisSubscriptionEvent) -> Void
    ) {
        self.loop = loop
        self.time = time
        self.observer = observer
        self.onEvent = onEvent
        machine = RedisSubscriberStateMachine(url: url, channels: channels, configuration: configuration)
        socket = RedisSocket(loop: loop, time: time)
        socket.handler = { [weak self] event in self?.handle(event) }
    }

    func start() {
        perform(machine.start(now: time.now))
    }

    func shutdown(_ continuation: UnsafeContinuation<Void, Never>) {
        shutdownWaiters.append(continuation)
        perform(machine.shutdown(now: time.now))
    }

    private func handle(_ event: RedisSocket.Event) {
        perform(machine.take(event, now: time.now))
    }

    private func perform(_ actions: [RedisSubscriberStateMachine.Action]) {
        for action in actions {
            switch action {
            case .socket(let action):
                socket.perform(action)
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
        if machine.isShutDown {
            socket.shutdown()
            let resumed = shutdownWaiters
            shutdownWaiters.removeAll()
            for continuation in resumed { continuation.resume() }
        }
    }
}
