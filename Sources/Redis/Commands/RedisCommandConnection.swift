import EventLoop
import Synchronization
import Timekeeping

/// One loop's pipelined command connection: `RedisCommandConnectionStateMachine` decides, this
/// shell feeds it the socket's events, performs its actions and answers the calls they name.
///
/// `@unchecked Sendable`: `machine`, `socket`, `waiters`, `busyPoll`, `isBusyPolling` and
/// `spareActions` are touched only on `loop`'s thread, reached through `loop.execute` or by
/// callers running there; `ready` is an `Atomic`, read from anywhere; `loop`, `time` and
/// `observer` are immutable.
final class RedisCommandConnection: @unchecked Sendable {
    let loop: EventLoop
    let time: any TimeSource
    let observer: RedisClientObserver
    /// Mirrors `machine.isConnected` for `RedisClient.isConnected`, which any thread may ask.
    let ready = Atomic<Bool>(false)
    private var machine: RedisCommandConnectionStateMachine
    private let socket: RedisSocket
    /// The calls waiting for a reply, by the ID the machine gave them.
    private var waiters = RequestTable<RedisCall>()
    private var busyPoll: BusyPollPolicy
    /// This connection holds the loop polling without blocking (one `beginBusyPoll` not ended).
    private var isBusyPolling = false
    /// The buffer a submission's actions go into, kept between submissions so that sending a
    /// command allocates no array. Moved out while in use: a submission made by a caller those
    /// actions answer finds it empty and uses one of its own.
    private var spareActions: [RedisCommandConnectionStateMachine.Action] = []

    init(url: RedisURL, loop: EventLoop, configuration: RedisCommandConnectionConfiguration, time: any TimeSource, observer: RedisClientObserver) {
        self.loop = loop
        self.time = time
        self.observer = observer
        machine = RedisCommandConnectionStateMachine(url: url, configuration: configuration)
        busyPoll = BusyPollPolicy(budget: configuration.busyPoll)
        socket = RedisSocket(loop: loop, time: time)
        socket.handler = { [weak self] event in self?.take(event) }
        socket.flushed = { [weak self, observer] writes in
            observer.wrote(writes)
            self?.flushed()
        }
    }

    private func flushed() {
        guard busyPoll.flushed(awaiting: machine.pendingCount, now: time.now), !isBusyPolling else { return }
        isBusyPolling = true
        loop.beginBusyPoll(for: busyPoll.budget)
    }

    /// Whatever the socket reports, the reply this connection polled for came or will not.
    private func stopBusyPolling() {
        guard isBusyPolling else { return }
        isBusyPolling = false
        loop.endBusyPoll()
    }

    private var role: RedisConnectionRole { .command(loopIndex: loop.index) }

    func start() {
        let now = time.now
        perform(machine.start(now: now), now: now)
    }

    /// Files `call` under its ID before performing the actions, which may answer it at once.
    /// `now`: the time on ``time`` the call read as it started.
    func submit(_ call: RedisCall, request: RedisRequest, deadline: Duration, now: Duration) -> RedisRequestID {
        var actions = spareActions
        spareActions = []
        let id = machine.submit(request, deadline: deadline, now: now, into: &actions)
        waiters.file(call, under: id)
        perform(actions, now: now)
        actions.removeAll(keepingCapacity: true)
        spareActions = actions
        return id
    }

    func cancel(_ id: RedisRequestID) {
        guard waiters.take(id) != nil else { return }
        let now = time.now
        perform(machine.cancel(id, now: now), now: now)
    }

    /// Stops reconnecting; `continuation` resumes once every written command was answered or
    /// ran out of time, and the socket closed.
    func shutdown(_ continuation: UnsafeContinuation<Void, Never>) {
        socket.whenShutDown(continuation)
        let now = time.now
        perform(machine.shutdown(now: now), now: now)
    }

    private func take(_ event: RedisSocket.Event) {
        let now = time.now
        stopBusyPolling()
        switch event {
        case .connected: perform(machine.connected(now: now), now: now)
        case .connectFailed(let detail): perform(machine.connectFailed(detail, now: now), now: now)
        case .received(let bytes):
            let actions = machine.received(bytes, now: now)
            // Before the actions: a caller answered by them may send its next command at once.
            if let caught = busyPoll.received(awaiting: machine.pendingCount, now: now) { observer.busyPolled(caught) }
            perform(actions, now: now)
        case .peerClosed:
            busyPoll.closed()
            perform(machine.peerClosed(now: now), now: now)
        case .timerFired: perform(machine.timerFired(now: now), now: now)
        }
    }

    /// Does what the machine said at `now` (on ``time``), the time the calls it answers end at.
    private func perform(_ actions: [RedisCommandConnectionStateMachine.Action], now: Duration) {
        for action in actions {
            switch action {
            case .connect(let host, let port): socket.connect(host: host, port: port)
            case .write(let bytes): socket.write(bytes)
            case .close:
                stopBusyPolling()
                busyPoll.closed()
                socket.close()
            case .armTimer(let instant): socket.armTimer(at: instant)
            case .cancelTimer: socket.cancelTimer()
            case .succeed(let id, let reply):
                waiters.take(id)?.finish(.success(reply), at: now)
            case .fail(let id, let error):
                waiters.take(id)?.finish(.failure(error), at: now)
            case .connected:
                ready.store(true, ordering: .relaxed)
                observer.connectionChanged(.connected(role))
            case .disconnected(let error, _):
                ready.store(false, ordering: .relaxed)
                observer.connectionChanged(.disconnected(role, error))
            case .connectAttemptFailed(let error, _):
                observer.connectionChanged(.connectAttemptFailed(role, error))
            }
        }
        guard machine.isShutDown else { return }
        // A drained connection closes without a `disconnected` action: say so once, for the
        // logs and the connected gauge.
        if ready.exchange(false, ordering: .relaxed) {
            observer.connectionChanged(.disconnected(role, .shutdown))
        }
        socket.shutdown()
    }
}

extension RedisCommandConnection {
    /// Runs `request` on this connection from any thread: on its loop at once, else through
    /// `loop.execute`. A cancelled caller is resumed at once with `.cancelled`; its reply is
    /// later read and dropped, so the pipeline stays in step.
    func run(_ request: RedisRequest, deadline: Duration) async -> RedisCall.Outcome {
        await RedisCall(connection: self, request: request, deadline: deadline).value()
    }
}
