import EventLoop
import Redis
import Synchronization
import Timekeeping

/// One loop's pipelined command connection: `RedisCommandConnectionStateMachine` decides, this
/// shell performs its actions on a `RedisSocket` and answers the calls it names.
///
/// `@unchecked Sendable`: `machine`, `socket`, `waiters` and `shutdownWaiters` are touched only on
/// `loop`'s thread (callers reach them through `loop.execute` or by running there); `ready` is an
/// `Atomic`, read from anywhere; the rest is immutable.
final class RedisCommandConnection: @unchecked Sendable {
    let loop: EventLoop
    let time: any TimeSource
    let observer: (any RedisClientObserver)?
    /// Mirrors `machine.isConnected` for `RedisClient.isConnected`, which any thread may ask.
    let ready = Atomic<Bool>(false)
    private var machine: RedisCommandConnectionStateMachine
    private let socket: RedisSocket
    /// The calls waiting for a reply, by the ID the machine gave them.
    private var waiters: [RedisRequestID: RedisCall] = [:]
    /// `shutdown` callers waiting until the connection has closed.
    private var shutdownWaiters: [UnsafeContinuation<Void, Never>] = []

    init(url: RedisURL, loop: EventLoop, configuration: RedisCommandConnectionConfiguration, time: any TimeSource, observer: (any RedisClientObserver)?) {
        self.loop = loop
        self.time = time
        self.observer = observer
        machine = RedisCommandConnectionStateMachine(url: url, configuration: configuration)
        socket = RedisSocket(loop: loop, time: time)
        socket.handler = { [weak self] event in self?.handle(event) }
    }

    private var role: RedisConnectionRole { .command(loopIndex: loop.index) }

    func start() {
        perform(machine.start(now: time.now))
    }

    /// Files `call` under its ID before performing the actions, which may answer it at once.
    func submit(_ call: RedisCall, request: RedisRequest, deadline: Duration) -> RedisRequestID {
        let (id, actions) = machine.submit(request, deadline: deadline, now: time.now)
        waiters[id] = call
        perform(actions)
        return id
    }

    func cancel(_ id: RedisRequestID) {
        guard waiters.removeValue(forKey: id) != nil else { return }
        perform(machine.cancel(id, now: time.now))
    }

    /// Stops reconnecting; `continuation` resumes once the last written command was answered
    /// (or its deadline passed) and the connection closed.
    func shutdown(_ continuation: UnsafeContinuation<Void, Never>) {
        shutdownWaiters.append(continuation)
        perform(machine.shutdown(now: time.now))
    }

    private func handle(_ event: RedisSocket.Event) {
        perform(machine.take(event, now: time.now))
    }

    private func perform(_ actions: [RedisCommandConnectionStateMachine.Action]) {
        for action in actions {
            switch action {
            case .socket(let action):
                socket.perform(action)
            case .succeed(let id, let reply):
                waiters.removeValue(forKey: id)?.finish(.success(reply))
            case .fail(let id, let error):
                waiters.removeValue(forKey: id)?.finish(.failure(error))
            case .connected:
                ready.store(true, ordering: .relaxed)
                observer?.connectionChanged(.connected(role))
            case .disconnected(let error, _):
                ready.store(false, ordering: .relaxed)
                observer?.connectionChanged(.disconnected(role, error))
            case .connectAttemptFailed(let error, _):
                observer?.connectionChanged(.connectAttemptFailed(role, error))
            }
        }
        if machine.isShutDown { closedForGood() }
    }

    private func closedForGood() {
        // A drained connection closes without a `disconnected` action: say so once, for the
        // logs and the connected gauge.
        if ready.exchange(false, ordering: .relaxed) {
            observer?.connectionChanged(.disconnected(role, .shutdown))
        }
        socket.shutdown()
        let resumed = shutdownWaiters
        shutdownWaiters.removeAll()
        for continuation in resumed { continuation.resume() }
    }
}
