import EventLoop
import Synchronization
import Timekeeping

/// The subscriber connection: `RedisSubscriberStateMachine` decides, this shell feeds it the
/// socket's events, performs its actions and hands subscriptions and messages to `onEvent`.
///
/// `@unchecked Sendable`: `machine` and `socket` are touched only on `loop`'s thread, reached
/// through `loop.execute`; `subscribed` is an `Atomic`, read from anywhere; `loop`, `time`,
/// `observer` and `onEvent` are immutable.
final class RedisSubscriberConnection: @unchecked Sendable {
    let loop: EventLoop
    private let time: any TimeSource
    private let observer: RedisClientObserver
    private let onEvent: @Sendable (RedisSubscriptionEvent) -> Void
    /// The client whose cluster map says where the channels live (nil: always the URL's node).
    private let client: RedisClient?
    /// Mirrors `machine.isSubscribed` for `RedisSubscription.isSubscribed`.
    let subscribed = Atomic<Bool>(false)
    private var machine: RedisSubscriberStateMachine
    private let socket: RedisSocket

    init(
        url: RedisURL, channels: [String], loop: EventLoop, configuration: RedisSubscriberConfiguration,
        time: any TimeSource, observer: RedisClientObserver, client: RedisClient?,
        onEvent: @escaping @Sendable (RedisSubscriptionEvent) -> Void
    ) {
        self.loop = loop
        self.client = client
        self.time = time
        self.observer = observer
        self.onEvent = onEvent
        machine = RedisSubscriberStateMachine(url: url, channels: channels, configuration: configuration)
        socket = RedisSocket(loop: loop, time: time)
        socket.handler = { [weak self] event in self?.take(event) }
    }

    func start() {
        locateChannels()
        perform(machine.start(now: time.now))
    }

    /// Before an event that may connect: the channels' master as the client's map has it.
    private func locateChannels() {
        if let client, let owner = client.owner(ofKey: machine.channels[0]) { machine.node = owner }
    }

    /// Closes for good; `continuation` resumes once the socket has closed.
    func shutdown(_ continuation: UnsafeContinuation<Void, Never>) {
        socket.whenShutDown(continuation)
        perform(machine.shutdown(now: time.now))
    }

    private func take(_ event: RedisSocket.Event) {
        let now = time.now
        switch event {
        case .connected: perform(machine.connected(now: now))
        case .connectFailed(let detail): perform(machine.connectFailed(detail, now: now))
        case .received(let bytes): perform(machine.received(bytes, now: now))
        case .peerClosed: perform(machine.peerClosed(now: now))
        case .timerFired:
            locateChannels()
            perform(machine.timerFired(now: now))
        }
    }

    private func perform(_ actions: [RedisSubscriberStateMachine.Action]) {
        for action in actions {
            switch action {
            case .connect(let host, let port): socket.connect(host: host, port: port)
            case .write(let bytes): socket.write(bytes)
            case .close: socket.close()
            case .armTimer(let instant): socket.armTimer(at: instant)
            case .cancelTimer: socket.cancelTimer()
            case .subscribed(let isResubscription):
                subscribed.store(true, ordering: .relaxed)
                observer.connectionChanged(.connected(.subscriber))
                onEvent(.subscribed(isResubscription: isResubscription))
            case .message(let channel, let payload):
                onEvent(.message(channel: channel, payload: payload))
            case .disconnected(let error, _):
                subscribed.store(false, ordering: .relaxed)
                observer.connectionChanged(.disconnected(.subscriber, error))
                onEvent(.disconnected(error))
            case .connectAttemptFailed(let error, _):
                observer.connectionChanged(.connectAttemptFailed(.subscriber, error))
            case .redirected(let redirect):
                observer.cluster(.redirected(redirect))
                client?.learn(redirect)
            }
        }
        if machine.isShutDown { socket.shutdown() }
    }
}
