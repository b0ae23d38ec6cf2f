import EventLoop
import Timekeeping

/// The I/O both Redis connection shells perform for their state machines: connecting (resolve,
/// then TCP), writing, closing, and the machine's one timer. Every outcome comes back as an
/// `Event` to `handler`, on the loop thread, and never from inside one of these methods: a
/// shell performing a list of actions is never re-entered halfway through it.
///
/// Each connect is an attempt with a number; closing moves the number on, so whatever an older
/// attempt reports afterwards (a resolution, a connect completion, `.cancelled` for the stream we
/// closed) is dropped here and the machine never hears of a socket it already gave up.
///
/// Both shells hold one, and share through it what they do alike; each performs its own
/// machine's actions and feeds it these events itself.
///
/// Loop-confined: created and used on `loop`'s thread only.
final class RedisSocket {
    enum Event {
        /// The TCP connection of the current attempt opened.
        case connected
        /// The current attempt failed (name not resolved, connect refused or unreachable).
        case connectFailed(String)
        /// Bytes read; valid only during the call.
        case received(UnsafeRawBufferPointer)
        /// The peer closed the connection, or it failed.
        case peerClosed
        /// The timer armed with `armTimer(at:)` is due.
        case timerFired
    }

    let loop: EventLoop
    private let time: any TimeSource
    /// Set once by the owner, before the first call.
    var handler: (Event) -> Void = { _ in }
    /// The stream connecting or connected, `nil` when closed.
    private var stream: TCPStream?
    /// The current attempt: completions carrying another number are stale.
    private var attempt = 0
    private var timer: LoopTimer?
    private var isShutDown = false
    /// `shutdown` callers of the shell, waiting until the socket is closed for good.
    private var shutdownWaiters: [UnsafeContinuation<Void, Never>] = []
    /// What was written since the last flush, and in how many writes: the commands that the
    /// loop's jobs submit in one turn leave in few system calls (and Redis reads each in one),
    /// not one call each.
    private var outgoing: [UInt8] = []
    private var outgoingWrites = 0
    private var flushQueued = false
    /// Told of each flush with the number of writes it carried. Set once by the owner.
    var flushed: (_ writes: Int) -> Void = { _ in }

    init(loop: EventLoop, time: any TimeSource) {
        self.loop = loop
        self.time = time
    }

    /// Starts an attempt; it reports `connected` or `connectFailed` unless closed before.
    func connect(host: String, port: Int) {
        attempt &+= 1
        let attempt = attempt
        // Deferred, because a numeric host resolves and a refused connect may fail at once:
        // those reports must not reach the machine while its shell still performs actions.
        let bound = LoopBound(self, loop: loop)
        loop.execute { bound.value.resolve(host: host, port: port, attempt: attempt) }
    }

    private func resolve(host: String, port: Int, attempt: Int) {
        guard attempt == self.attempt else { return }
        Resolver.resolve(host: host, port: port, on: loop) { [self] result in
            guard attempt == self.attempt else { return }
            switch result {
            case .success(let addresses):
                open(addresses[0], attempt: attempt)
            case .failure(let error):
                handler(.connectFailed("resolving \(host): \(error)"))
            }
        }
    }

    private func open(_ address: SocketAddress, attempt: Int) {
        let connecting = TCPStream.connect(to: address, on: loop) { [self] result in
            guard attempt == self.attempt else { return }
            switch result {
            case .success(let connected):
                stream = connected
                connected.setNoDelay()
                connected.onRead = { [self] bytes in handler(.received(bytes)) }
                connected.onReadEnd = { [self] _ in streamEnded(connected) }
                connected.onClose = { [self] in streamEnded(connected) }
                connected.startReading()
                handler(.connected)
            case .failure(let error):
                // The stream closed itself before reporting.
                stream = nil
                handler(.connectFailed(error.description))
            }
        }
        // Non-nil only while the connect is in progress (a failure at once returns nil).
        if let connecting { stream = connecting }
    }

    /// The current stream ended without our closing it: the peer closed or reset it, or the
    /// loop is stopping and closed every handle.
    private func streamEnded(_ ended: TCPStream) {
        guard ended === stream else { return }
        stream = nil
        attempt &+= 1
        dropOutgoing()
        ended.close()
        handler(.peerClosed)
    }

    /// Sends `bytes` once the loop's queued jobs have run: the flush is a job queued behind
    /// them, so every write they make joins this one, up to ``writesPerFlush``. Bytes for a
    /// stream that closes before the flush are dropped with it (its commands are failed by the
    /// machine, never sent elsewhere).
    func write(_ bytes: [UInt8]) {
        guard stream != nil else { return }
        outgoing.append(contentsOf: bytes)
        outgoingWrites += 1
        if !flushQueued {
            flushQueued = true
            let bound = LoopBound(self, loop: loop)
            loop.execute { bound.value.flush() }
        }
        // A full part leaves now; the queued flush takes the rest of the turn's.
        if outgoingWrites >= Self.writesPerFlush { sendOutgoing() }
    }

    private func flush() {
        flushQueued = false
        sendOutgoing()
    }

    private func sendOutgoing() {
        guard let stream, !outgoing.isEmpty else { return }
        stream.write(outgoing)
        flushed(outgoingWrites)
        dropOutgoing()
    }

    private func dropOutgoing() {
        outgoingWrites = 0
        // A rare large value (a page stored) does not keep its buffer for good.
        if outgoing.capacity > Self.keptOutgoingCapacity {
            outgoing = []
        } else {
            outgoing.removeAll(keepingCapacity: true)
        }
    }

    private static let keptOutgoingCapacity = 64 * 1024
    /// The most commands one flush carries. A loop turn that reads many requests (a shared-cache
    /// hit each) would otherwise send all their looks at its end, and then idle while Redis
    /// answers them all, Redis idling meanwhile: sent in parts, Redis works on the first while the
    /// loop reads on, and its replies come back while the loop still has work. Large enough that a
    /// part still saves Redis and us most of the system calls (bench/HISTORY.md, issue 33).
    static let writesPerFlush = 32

    /// Closes the stream (connecting or connected); nothing more is reported from it.
    func close() {
        attempt &+= 1
        dropOutgoing()
        guard let stream else { return }
        self.stream = nil
        stream.close()
    }

    /// Arms the one timer for `instant` on the time line, replacing any armed before.
    func armTimer(at instant: Duration) {
        guard !isShutDown else { return }
        let timer = timer ?? LoopTimer(loop: loop)
        self.timer = timer
        timer.start(after: max(.zero, instant - time.now)) { [self] in handler(.timerFired) }
    }

    func cancelTimer() {
        timer?.stop()
    }

    /// Resumes `continuation` at the next `shutdown()`.
    func whenShutDown(_ continuation: UnsafeContinuation<Void, Never>) {
        shutdownWaiters.append(continuation)
    }

    /// Closes the stream and releases the timer for good, then resumes the `whenShutDown`
    /// callers. The shell calls it whenever it finds its machine shut down.
    func shutdown() {
        close()
        isShutDown = true
        timer?.cancel()
        timer = nil
        let resumed = shutdownWaiters
        shutdownWaiters.removeAll()
        for continuation in resumed { continuation.resume() }
    }
}
