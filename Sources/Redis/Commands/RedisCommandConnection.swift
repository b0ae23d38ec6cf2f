import EventLoop
import Synchronization
import Timekeeping

/// One loop's pipelined command connection: `RedisCommandConnectionStateMachine` decides, the
/// shell performs its actions and answers the calls it names.
///
/// `@unchecked Sendable`: `waiters` is touched only on `loop`'s thread, like the shell's state;
/// `ready` is an `Atomic`, read from anywhere; `observer` is immutable.
final class RedisCommandConnection: RedisConnectionShell<RedisCommandConnectionStateMachine>, @unchecked Sendable {
    let observer: (any RedisClientObserver)?
    /// Mirrors `machine.isConnected` for `RedisClient.isConnected`, which any thread may ask.
    let ready = Atomic<Bool>(false)
    /// The calls waiting for a reply, by the ID the machine gave them.
    private var waiters: [RedisRequestID: RedisCall] = [:]

    init(url: RedisURL, loop: EventLoop, configuration: RedisCommandConnectionConfiguration, time: any TimeSource, observer: (any RedisClientObserver)?) {
        self.observer = observer
        super.init(machine: RedisCommandConnectionStateMachine(url: url, configuration: configuration), loop: loop, time: time)
    }

    private var role: RedisConnectionRole { .command(loopIndex: loop.index) }

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

    override func performOwn(_ action: RedisCommandConnectionStateMachine.Action) {
        switch action {
        case .socket:
            break
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

    override func didShutDown() {
        // A drained connection closes without a `disconnected` action: say so once, for the
        // logs and the connected gauge.
        if ready.exchange(false, ordering: .relaxed) {
            observer?.connectionChanged(.disconnected(role, .shutdown))
        }
    }
}
