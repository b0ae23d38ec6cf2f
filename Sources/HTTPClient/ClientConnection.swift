import EventLoop
import HTTP1

/// One keep-alive connection to an origin, carrying one request at a time. While idle in the pool
/// it keeps reading, so a close by the server is noticed at once and the connection leaves the
/// pool. Loop-confined.
final class ClientConnection {
    let stream: TCPStream
    private var parser: HTTPResponseParser
    private var state = State.idle
    private var completion: ((Result<HTTPClientResponse, ExchangeFailure>) -> Void)?
    private var method = HTTPMethod.get
    private var head: HTTPResponseHead?
    private var body: [UInt8] = []
    private var receivedBytes = false
    private var inbound: [UInt8] = []
    /// Requests answered on this connection so far.
    private(set) var answered = 0
    /// Tells the pool that this connection began closing: it must not be leased again.
    var onClosing: ((ClientConnection) -> Void)?
    /// Tells the pool that this connection is gone (closed while idle, or after a failure).
    var onClosed: ((ClientConnection) -> Void)?
    private var idleTimer: LoopTimer?
    /// When the connection last went back to the pool; the idle timer is armed once and, when it
    /// fires early (the connection was used meanwhile), waits out what is left from here.
    private var idleSince = ContinuousClock.now
    private var idleTimeout = Duration.zero

    private enum State {
        case idle, busy, closed
    }

    /// How an exchange on this connection ended badly. `stale` means the server closed a reused
    /// connection before sending a byte: the request can safely go out again on a fresh one.
    enum ExchangeFailure: Error {
        case stale
        case failed(HTTPClientError)
    }

    init(stream: TCPStream, maxResponseBytes: Int) {
        self.stream = stream
        var limits = HTTPLimits()
        limits.maxBodyBytes = maxResponseBytes
        limits.maxHeaderBytes = 64 * 1024
        parser = HTTPResponseParser(limits: limits)
        stream.setNoDelay()
        stream.onRead = { [unowned self] bytes in received(bytes) }
        stream.onReadEnd = { [unowned self] error in ended(error) }
        stream.onClose = { [self] in closed() }
        stream.startReading()
    }

    var isUsable: Bool { state == .idle && !stream.isClosing }

    /// Sends one request; `completion` runs once on the loop thread.
    func send(_ bytes: [UInt8], method: HTTPMethod, completion: @escaping (Result<HTTPClientResponse, ExchangeFailure>) -> Void) {
        precondition(state == .idle, "a pooled connection carries one request at a time")
        state = .busy
        self.method = method
        self.completion = completion
        head = nil
        body.removeAll(keepingCapacity: true)
        receivedBytes = false
        inbound.removeAll(keepingCapacity: true)
        parser.reset()
        stream.write(bytes)
    }

    /// Abandons the exchange in progress: the connection closes and is never reused.
    func abort() {
        completion = nil
        close()
    }

    /// Closes the connection once nobody has used it for `timeout`. The timer is not stopped
    /// and re-armed per call (two timer-heap operations on every upstream call): it stays armed
    /// and checks `idleSince` when it fires.
    func parkIdle(for timeout: Duration) {
        idleSince = .now
        idleTimeout = timeout
        guard idleTimer == nil else { return }
        let timer = LoopTimer(loop: stream.loop)
        idleTimer = timer
        timer.start(after: timeout) { [unowned self] in idleTimerFired() }
    }

    private func idleTimerFired() {
        guard let idleTimer else { return }
        let remaining = state == .idle ? idleTimeout - idleSince.duration(to: .now) : idleTimeout
        if remaining > .zero {
            idleTimer.start(after: remaining) { [unowned self] in idleTimerFired() }
        } else {
            close()
        }
    }

    func close() {
        guard state != .closed else { return }
        state = .closed
        onClosing?(self)
        onClosing = nil
        stream.close()
    }

    private func received(_ bytes: UnsafeRawBufferPointer) {
        guard state == .busy else {
            // Bytes nobody asked for: the connection's framing can no longer be trusted.
            close()
            return
        }
        receivedBytes = true
        inbound.append(contentsOf: bytes)
        var consumed = 0
        var complete = false
        var parseError: HTTPParseError?
        inbound.withUnsafeBytes { all in
            while true {
                let input = UnsafeRawBufferPointer(rebasing: all[consumed...])
                let step: (event: HTTPResponseParser.Event, consumed: Int)
                do throws(HTTPParseError) {
                    step = try parser.parse(input, requestMethod: method)
                } catch {
                    parseError = error
                    return
                }
                consumed += step.consumed
                switch step.event {
                case .needMoreData:
                    return
                case .head(let parsed):
                    head = parsed
                case .body(let range):
                    body.append(contentsOf: input[range])
                case .end:
                    complete = true
                    return
                }
            }
        }
        if consumed == inbound.count {
            inbound.removeAll(keepingCapacity: true)
        } else {
            inbound.removeFirst(consumed)
        }
        if let parseError {
            fail(.failed(.malformed(parseError)))
        } else if complete {
            // Bytes after a complete answer were never asked for: do not reuse the connection.
            finish(keepAlive: (head?.keepAlive ?? false) && inbound.isEmpty)
        }
    }

    private func ended(_ error: UVError?) {
        guard state == .busy else {
            close()
            return
        }
        if !receivedBytes && answered > 0 {
            fail(.stale)
            return
        }
        if error == nil {
            do throws(HTTPParseError) {
                if try parser.finishAtEOF() == .end {
                    finish(keepAlive: false)
                    return
                }
            } catch {
                fail(.failed(.reset("closed mid-answer: \(error.detail)")))
                return
            }
        }
        fail(.failed(.reset(error.map { "connection failed: \($0)" } ?? "closed before answering")))
    }

    private func finish(keepAlive: Bool) {
        guard let head else { return }
        let response = HTTPClientResponse(status: head.status, fieldLines: head.fieldLines, body: body)
        body = []
        answered += 1
        let completion = self.completion
        self.completion = nil
        if keepAlive {
            state = .idle
        } else {
            close()
        }
        completion?(.success(response))
    }

    private func fail(_ failure: ExchangeFailure) {
        let completion = self.completion
        self.completion = nil
        close()
        completion?(.failure(failure))
    }

    private func closed() {
        state = .closed
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
