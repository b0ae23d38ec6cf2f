import HTTP1

/// The rules of one keep-alive upstream connection, without the socket: one request at a time,
/// its answer parsed as bytes arrive, whether the connection may carry another, what the end of
/// the stream means (an answer framed by it, a stale connection, a reset), and when an idle
/// connection closes. `ClientConnection` feeds it events and does what it returns. Pure: time
/// comes in as `now` on the injected time line, so the idle rule is tested exactly.
struct ClientConnectionStateMachine {
    enum State: Equatable {
        case idle, busy, closed
    }

    /// What a read, or the end of the stream, leaves the exchange with.
    enum ReadAction {
        /// The answer is not complete yet.
        case none
        /// The answer is complete; when `keepAlive` is false the connection closes.
        case answered(HTTPClientResponse, keepAlive: Bool)
        /// The exchange failed; the connection closes.
        case failed(ExchangeFailure)
        /// Bytes or an end of stream while no request was out: the framing can no longer be
        /// trusted (or the server closed an idle connection); the connection closes.
        case close
    }

    /// How the stream ended. The shell names a read error in text, so that the rules need
    /// nothing of the socket layer (EventLoop's `UVError` wraps libuv's codes).
    enum StreamEnd {
        /// The peer's FIN.
        case finished
        /// A read error, as the socket layer describes it ("ECONNRESET: connection reset by peer").
        case failed(reason: String)
    }

    /// What the idle timer should do.
    enum IdleTimerAction: Equatable {
        case none
        case arm(after: Duration)
        case close
    }

    private(set) var state = State.idle
    /// Requests answered on this connection so far.
    private(set) var answered = 0
    private var parser: HTTPResponseParser
    private var method = HTTPMethod.get
    private var head: HTTPResponseHead?
    private var body: [UInt8] = []
    private var receivedBytes = false
    private var inbound: [UInt8] = []
    /// When the connection last went back to the pool. The idle timer is armed once and not
    /// re-armed per request (two timer-heap operations on every upstream call); when it fires
    /// early, it waits out what is left from here.
    private var idleSince = Duration.zero
    private var idleTimeout = Duration.zero
    private var idleTimerArmed = false

    init(maxResponseBytes: Int) {
        var limits = HTTPLimits()
        limits.maxBodyBytes = maxResponseBytes
        limits.maxHeaderBytes = 64 * 1024
        parser = HTTPResponseParser(limits: limits)
    }

    var isUsable: Bool { state == .idle }

    /// A request goes out; its answer is parsed from the bytes that follow.
    mutating func send(method: HTTPMethod) {
        precondition(state == .idle, "a pooled connection carries one request at a time")
        state = .busy
        self.method = method
        head = nil
        body.removeAll(keepingCapacity: true)
        receivedBytes = false
        inbound.removeAll(keepingCapacity: true)
        parser.reset()
    }

    mutating func received(_ bytes: UnsafeRawBufferPointer) -> ReadAction {
        guard state == .busy else { return close() }
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
        if let parseError { return fail(.failed(.malformed(parseError))) }
        // Bytes after a complete answer were never asked for: do not reuse the connection.
        if complete { return finish(keepAlive: (head?.keepAlive ?? false) && inbound.isEmpty) }
        return .none
    }

    /// The stream ended: the peer's FIN completes an answer framed by the end of the stream; any
    /// other end fails the exchange.
    mutating func readEnded(_ end: StreamEnd) -> ReadAction {
        guard state == .busy else { return close() }
        if !receivedBytes && answered > 0 { return fail(.stale) }
        switch end {
        case .finished:
            do throws(HTTPParseError) {
                if try parser.finishAtEOF() == .end { return finish(keepAlive: false) }
            } catch {
                return fail(.failed(.reset("closed mid-answer: \(error.detail)")))
            }
            return fail(.failed(.reset("closed before answering")))
        case .failed(let reason):
            return fail(.failed(.reset("connection failed: \(reason)")))
        }
    }

    /// Back in the pool at `now`: arms the idle timer unless it is armed already.
    mutating func parked(now: Duration, idleTimeout: Duration) -> IdleTimerAction {
        idleSince = now
        self.idleTimeout = idleTimeout
        guard !idleTimerArmed, state != .closed else { return .none }
        idleTimerArmed = true
        return .arm(after: idleTimeout)
    }

    /// The idle timer fired at `now`: the connection closes once it has been idle for the whole
    /// timeout; otherwise the timer waits out what is left (all of it while a request is out).
    mutating func idleTimerFired(now: Duration) -> IdleTimerAction {
        guard idleTimerArmed, state != .closed else { return .none }
        let remaining = state == .idle ? idleTimeout - (now - idleSince) : idleTimeout
        if remaining > .zero { return .arm(after: remaining) }
        closing()
        return .close
    }

    /// The connection is closing (by any side): nothing more is carried on it.
    mutating func closing() {
        state = .closed
        idleTimerArmed = false
    }

    private mutating func finish(keepAlive: Bool) -> ReadAction {
        guard let head else { return .none }
        let response = HTTPClientResponse(status: head.status, fieldLines: head.fieldLines, body: body)
        body = []
        answered += 1
        if keepAlive {
            state = .idle
        } else {
            closing()
        }
        return .answered(response, keepAlive: keepAlive)
    }

    private mutating func fail(_ failure: ExchangeFailure) -> ReadAction {
        closing()
        return .failed(failure)
    }

    private mutating func close() -> ReadAction {
        closing()
        return .close
    }
}

/// How an exchange on a pooled connection ended badly. `stale` means the server closed a reused
/// connection before sending a byte: the request can safely go out again on a fresh one.
enum ExchangeFailure: Error, Equatable {
    case stale
    case failed(HTTPClientError)
}
