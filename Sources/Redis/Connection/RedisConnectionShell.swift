import EventLoop
import Timekeeping

/// What both connection shells do alike: feed the socket's events to the machine, perform the
/// socket's actions, and close for good once the machine has shut down. A subclass performs
/// the machine's own actions (answering callers, reporting subscriptions).
///
/// `@unchecked Sendable`: `machine`, `socket` and `shutdownWaiters` (and a subclass's mutable
/// state) are touched only on `loop`'s thread, reached through `loop.execute` or by callers
/// running there; `loop` and `time` are immutable.
class RedisConnectionShell<Machine: RedisSocketDrivenMachine>: @unchecked Sendable {
    let loop: EventLoop
    let time: any TimeSource
    var machine: Machine
    private let socket: RedisSocket
    /// `shutdown` callers waiting until the machine has shut down and the socket closed.
    private var shutdownWaiters: [UnsafeContinuation<Void, Never>] = []

    init(machine: Machine, loop: EventLoop, time: any TimeSource) {
        self.loop = loop
        self.time = time
        self.machine = machine
        socket = RedisSocket(loop: loop, time: time)
        socket.handler = { [weak self] event in
            guard let self else { return }
            perform(self.machine.take(event, now: time.now))
        }
    }

    final func start() {
        perform(machine.start(now: time.now))
    }

    /// Stops reconnecting; `continuation` resumes once the machine has shut down (for the
    /// command connection: once every written command was answered or ran out of time).
    final func shutdown(_ continuation: UnsafeContinuation<Void, Never>) {
        shutdownWaiters.append(continuation)
        perform(machine.shutdown(now: time.now))
    }

    /// Performs `actions` in order: the socket's here, the others by `performOwn`.
    final func perform(_ actions: [Machine.Action]) {
        for action in actions {
            if let socketAction = action.socketAction {
                socket.perform(socketAction)
            } else {
                performOwn(action)
            }
        }
        guard machine.isShutDown else { return }
        socket.shutdown()
        didShutDown()
        let resumed = shutdownWaiters
        shutdownWaiters.removeAll()
        for continuation in resumed { continuation.resume() }
    }

    /// Performs one of the machine's own actions: every subclass overrides it.
    func performOwn(_ action: Machine.Action) {
        preconditionFailure("\(Self.self) does not perform \(action)")
    }

    /// Called whenever `perform` finds the machine shut down, after the socket closed.
    func didShutDown() {}
}
