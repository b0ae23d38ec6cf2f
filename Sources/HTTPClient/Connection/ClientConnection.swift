import EventLoop
import HTTP1
import Timekeeping

/// One keep-alive connection to an origin, carrying one request at a time, as
/// `ClientConnectionStateMachine` decides: this shell owns the stream, the request's completion
/// and the idle timer. While idle in the pool it keeps reading, so a close by the server is
/// noticed at once and the connection leaves the pool. Loop-confined.
final class ClientConnection {
    let stream: TCPStream
    private var machine: ClientConnectionStateMachine
    private let time: any TimeSource
    private var completion: ((Result<HTTPClientResponse, ExchangeFailure>) -> Void)?
    /// Tells the pool that this connection began closing: it must not be leased again.
    var onClosing: ((ClientConnection) -> Void)?
    /// Tells the pool that this connection is gone (closed while idle, or after a failure).
    var onClosed: ((ClientConnection) -> Void)?
    private var idleTimer: LoopTimer?

    init(stream: TCPStream, maxResponseBytes: Int, time: any TimeSource) {
        self.stream = stream
        self.time = time
        machine = ClientConnectionStateMachine(maxResponseBytes: maxResponseBytes)
        stream.setNoDelay()
        stream.onRead = { [unowned self] bytes in perform(machine.received(bytes)) }
        stream.onReadEnd = { [unowned self] error in
            perform(machine.readEnded(error.map { .failed(reason: "\($0)") } ?? .finished))
        }
        stream.onClose = { [self] in closed() }
        stream.startReading()
    }

    var isUsable: Bool { machine.isUsable && !stream.isClosing }

    /// Requests answered on this connection so far.
    var answered: Int { machine.answered }

    /// Sends one request; `completion` runs once on the loop thread.
    func send(_ bytes: [UInt8], method: HTTPMethod, completion: @escaping (Result<HTTPClientResponse, ExchangeFailure>) -> Void) {
        machine.send(method: method)
        self.completion = completion
        stream.write(bytes)
    }

    /// Abandons the exchange in progress: the connection closes and is never reused.
    func abort() {
        completion = nil
        close()
    }

    /// Closes the connection once nobody has used it for `timeout`.
    func parkIdle(for timeout: Duration) {
        perform(machine.parked(now: time.now, idleTimeout: timeout))
    }

    func close() {
        guard machine.state != .closed || !stream.isClosing else { return }
        machine.closing()
        onClosing?(self)
        onClosing = nil
        stream.close()
    }

    private func perform(_ action: ClientConnectionStateMachine.ReadAction) {
        switch action {
        case .none:
            return
        case .answered(let response, let keepAlive):
            let completion = self.completion
            self.completion = nil
            if !keepAlive { close() }
            completion?(.success(response))
        case .failed(let failure):
            let completion = self.completion
            self.completion = nil
            close()
            completion?(.failure(failure))
        case .close:
            close()
        }
    }

    private func perform(_ action: ClientConnectionStateMachine.IdleTimerAction) {
        switch action {
        case .none:
            return
        case .arm(let delay):
            let timer = idleTimer ?? LoopTimer(loop: stream.loop)
            idleTimer = timer
            timer.start(after: delay) { [unowned self] in perform(machine.idleTimerFired(now: time.now)) }
        case .close:
            close()
        }
    }

    private func closed() {
        machine.closing()
        idleTimer?.cancel()
        idleTimer = nil
        let completion = self.completion
        self.completion = nil
        completion?(.failure(.failed(.reset("connection closed"))))
        onClosing = nil
        onClosed?(self)
        onClosed = nil
    }
}
