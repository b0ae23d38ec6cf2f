import EventLoop
import HTTP1

/// One client connection: parses requests, runs one handler at a time, answers in order.
///
/// Pipelined requests wait in `inbound` until the answer before them is written, so answers
/// never overtake each other. Loop-confined.
final class HTTPConnection {
    private let stream: TCPStream
    private unowned let owner: LoopServer
    /// What every request reads, taken from the server once: each read through the `unowned`
    /// owner and server was a `swift_unownedRetainStrong` and a release, several per cached page.
    private let configuration: ServerConfiguration
    private let loop: EventLoop
    private let dates: HTTPDateCache
    private let immediateResponder: ImmediateResponder?
    private let answerObserver: AnswerObserver?
    private var parser: HTTPRequestParser
    private var inbound: [UInt8] = []
    private var outbound: [UInt8] = []
    private var state = State.awaitingHead
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private let timer: LoopTimer
    private var timerPurpose = TimerPurpose.none
    private var closeAfterAnswer = false
    private var handlerTask: Task<Void, Never>?
    /// The request its handler is answering, until the answer is given: by the handler, or by
    /// `cutShort` at the end of a shutdown (then the handler's late answer is dropped).
    private var awaitingHandler: (head: HTTPRequestHead, context: RequestContext)?
    /// Whether this connection's request counts toward the server's in-flight limit.
    private var holdsRequestSlot = false
    /// True while `process` runs, so an answer given synchronously does not re-enter it.
    private var isProcessing = false
    /// When the connection last became idle; the idle timer is not re-armed per request, it
    /// checks this when it fires.
    private var idleSince = ContinuousClock.now

    private enum State {
        case awaitingHead, readingBody, responding, closed
    }

    private enum TimerPurpose {
        case none, idle, request
    }

    private enum ParseOutcome {
        case needMoreData(sendContinue: Bool), complete, failed(HTTPParseError)
    }

    init(stream: TCPStream, owner: LoopServer) {
        self.stream = stream
        self.owner = owner
        configuration = owner.configuration
        loop = owner.loop
        dates = owner.dates
        immediateResponder = owner.server.immediateResponder
        answerObserver = owner.server.answerObserver
        parser = HTTPRequestParser(limits: configuration.limits)
        timer = LoopTimer(loop: loop)
    }

    func start() {
        stream.setNoDelay()
        stream.onRead = { [unowned self] bytes in received(bytes) }
        stream.onReadEnd = { [unowned self] _ in peerClosed() }
        stream.onWritesFlushed = { [unowned self] in resumeReadingIfPossible() }
        stream.onClose = { [self] in closed() }
        stream.startReading()
        armTimer()
    }

    // MARK: Input

    private func received(_ bytes: UnsafeRawBufferPointer) {
        inbound.append(contentsOf: bytes)
        switch state {
        case .awaitingHead, .readingBody:
            process()
        case .responding:
            if inbound.count > configuration.maxBufferedInputBytes { stream.stopReading() }
        case .closed:
            break
        }
    }

    /// Parses as far as the buffered bytes go. A complete request is dispatched; when it is
    /// answered at once (an immediate answer, an overload refusal) parsing goes on with the
    /// requests pipelined behind it, in this loop rather than by recursion.
    private func process() {
        // An answer given inside the loop below comes back here through `finishAnswer`.
        guard !isProcessing else { return }
        isProcessing = true
        defer { isProcessing = false }
        while state == .awaitingHead || state == .readingBody {
            switch parseBuffered() {
            case .failed(let error):
                reject(error)
            case .complete:
                dispatch()
            case .needMoreData(let sendContinue):
                if sendContinue { stream.write(Self.continueLine) }
                armTimer()
                return
            }
        }
    }

    /// Parses buffered bytes until a request is complete, more bytes are needed, or the input
    /// is refused; drops the bytes consumed.
    private func parseBuffered() -> ParseOutcome {
        var consumed = 0
        var sendContinue = false
        var outcome = ParseOutcome.needMoreData(sendContinue: false)
        inbound.withUnsafeBytes { all in
            while true {
                let input = UnsafeRawBufferPointer(rebasing: all[consumed...])
                let event: HTTPRequestParser.Event
                do throws(HTTPParseError) {
                    let used: Int
                    (event, used) = try parser.parse(input)
                    consumed += used
                } catch {
                    outcome = .failed(error)
                    return
                }
                // Consumed, so a parsed head moves into `head` instead of being copied.
                switch consume event {
                case .needMoreData:
                    outcome = .needMoreData(sendContinue: sendContinue)
                    return
                case .head(let parsed):
                    head = parsed
                    body.removeAll(keepingCapacity: true)
                    state = .readingBody
                    sendContinue = parsed.expectsContinue && parsed.framing != .none && consumed == all.count
                case .body(let range):
                    body.append(contentsOf: input[range])
                case .end:
                    outcome = .complete
                    return
                }
            }
        }
        if consumed == inbound.count {
            inbound.removeAll(keepingCapacity: true)
        } else if consumed > 0 {
            inbound.removeFirst(consumed)
        }
        return outcome
    }

    private static let continueLine = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    // MARK: Handling

    private func dispatch() {
        // Taken, not copied, and from here on read through `request`: a copy of the head
        // retains each of its parts.
        guard let head = head.take() else { return }
        state = .responding
        var request = HTTPRequest(head: head, body: body)
        var context = RequestContext(loop: loop, receivedAt: .now)
        if let immediate = immediateResponder, let response = immediate(&request, &context) {
            // Answered before this returns to the loop, so no timer can fire meanwhile. The idle
            // timer stays armed (it checks `idleSince`); a read timer was this request's, and the
            // next request, perhaps begun in the same read, gets its own.
            if timerPurpose == .request { disarmTimer() }
            answer(response, to: request.head, context: context, source: .responder)
            return
        }
        // An armed idle timer stays armed here too (it lets a running handler be); stopping it
        // and starting it again after the answer cost two timer-heap operations per request.
        if timerPurpose == .request { disarmTimer() }
        guard owner.server.requests.admit(limit: configuration.maxInFlightRequests) else {
            // Overloaded: say so at once instead of queueing work that would answer too late.
            var problem = ProblemDetails(status: .serviceUnavailable, detail: "The service is at capacity; try again shortly.")
                .response(headers: ["Retry-After": "1", "Cache-Control": "no-store"])
            if !context.route.isEmpty { problem.route = context.route }
            answer(problem, to: request.head, context: context, source: .overload)
            return
        }
        holdsRequestSlot = true
        awaitingHandler = (request.head, context)
        let responder = owner.server.responder
        let bound = LoopBound(self, loop: loop)
        let handlerContext = context
        // A plain task preferring the loop: `Task.immediate` (run until the first suspension
        // right here) measured no different on the hot path and needs re-entrancy care.
        handlerTask = Task(executorPreference: loop) {
            let response = await responder(request, handlerContext)
            // Off the loop only when the loop stopped under a running handler (the process is
            // shutting down): the connection closed with the loop, so no one waits for this.
            guard bound.loop.inLoop else { return }
            bound.value.handlerAnswered(response)
        }
    }

    private func handlerAnswered(_ response: consuming HTTPResponse) {
        // Nil when the shutdown already answered for the handler.
        guard let (head, context) = awaitingHandler.take() else { return }
        answer(response, to: head, context: context, source: .responder)
    }

    /// Every answer to a parsed request comes here: the observer sees it (also when the client
    /// has gone and nothing is written), then it is written.
    private func answer(
        _ response: consuming HTTPResponse, to request: HTTPRequestHead, context: RequestContext, source: AnsweredRequest.Source
    ) {
        handlerTask = nil
        releaseRequestSlot()
        var response = consume response
        answerObserver?(&response, AnsweredRequest(head: request, context: context, source: source))
        guard state == .responding else { return }
        if let prefix = response.resetAfterBodyBytes {
            var truncated = response
            truncated.body = Array(response.body.prefix(prefix))
            truncated.headers.replaceOrAdd(name: "Content-Length", value: String(response.body.count))
            write(truncated, method: request.method, version: request.version, keepAlive: true)
            state = .closed
            stream.reset()
            return
        }
        // Winding down, a connection still answers the requests it has already received
        // (pipelined behind this one); the last answer says `Connection: close`.
        let windingDown = closeAfterAnswer || owner.isDraining
        let keepAlive = request.keepAlive && (!windingDown || !inbound.isEmpty)
        write(response, method: request.method, version: request.version, keepAlive: keepAlive)
        finishAnswer(keepAlive: keepAlive)
    }

    private func write(_ response: HTTPResponse, method: HTTPMethod, version: HTTPVersion, keepAlive: Bool) {
        let code = response.status.code
        let hasBody = !(100..<200).contains(code) && code != 204 && code != 304
        outbound.removeAll(keepingCapacity: true)
        HTTPResponseSerializer.writeHead(status: response.status, headers: response.headers, into: &outbound, terminated: false)
        outbound.append(contentsOf: response.fields.bytes)
        if hasBody, !response.headers.contains("Content-Length") {
            outbound.append(contentsOf: Self.contentLengthPrefix)
            outbound.append(contentsOf: String(response.body.count).utf8)
            outbound.append(contentsOf: Self.crlf)
        }
        if !keepAlive {
            outbound.append(contentsOf: Self.connectionClose)
        } else if version == .http1_0 {
            outbound.append(contentsOf: Self.connectionKeepAlive)
        }
        outbound.append(contentsOf: dates.headerLine())
        outbound.append(contentsOf: Self.crlf)
        if hasBody && method != .head {
            // Small bodies join the head; larger ones go beside it in one writev, uncopied.
            if response.body.count <= 16 * 1024 {
                outbound.append(contentsOf: response.body)
                stream.write(outbound)
            } else {
                stream.write(outbound, response.body)
            }
        } else {
            stream.write(outbound)
        }
    }

    private static let contentLengthPrefix = Array("Content-Length: ".utf8)
    private static let connectionClose = Array("Connection: close\r\n".utf8)
    private static let connectionKeepAlive = Array("Connection: keep-alive\r\n".utf8)
    private static let crlf: [UInt8] = [13, 10]

    private func finishAnswer(keepAlive: Bool) {
        guard keepAlive else {
            state = .closed
            disarmTimer()
            stream.closeAfterFlush()
            return
        }
        state = .awaitingHead
        parser.reset()
        process()
        resumeReadingIfPossible()
    }

    private func resumeReadingIfPossible() {
        guard state == .awaitingHead || state == .readingBody else { return }
        if stream.queuedWriteBytes > configuration.maxQueuedOutputBytes {
            stream.stopReading()
        } else {
            stream.startReading()
        }
    }

    /// A request the parser refused: answer its status as a problem, then close.
    private func reject(_ error: HTTPParseError) {
        refuse(ProblemDetails(status: error.status, detail: error.detail), source: .malformedRequest)
    }

    /// The HTTP layer's own answer (a refused or timed-out request): observed like any other,
    /// then the connection closes. The head is there when the refusal came after it (a body too
    /// large, a bad chunk), so the client's request id and method are known.
    private func refuse(_ problem: ProblemDetails, source: AnsweredRequest.Source) {
        state = .responding
        disarmTimer()
        var response = problem.response()
        let head = self.head.take() ?? parser.refusedHead
        answerObserver?(&response, AnsweredRequest(head: head, context: RequestContext(loop: loop, receivedAt: .now), source: source))
        write(response, method: head?.method ?? .get, version: .http1_1, keepAlive: false)
        finishAnswer(keepAlive: false)
    }

    // MARK: Timers

    /// Idle with nothing buffered: the keep-alive timeout. A request begun: the read timeout,
    /// counted from its first byte and not restarted by later bytes (a trickling client loses).
    private func armTimer() {
        guard state == .awaitingHead || state == .readingBody else { return }
        // The parser consumes whole lines: a request whose lines so far came complete has begun
        // with nothing left in `inbound`.
        let begun = state == .readingBody || !inbound.isEmpty || parser.hasBegunMessage
        if begun {
            guard timerPurpose != .request else { return }
            timerPurpose = .request
            timer.start(after: configuration.requestReadTimeout) { [unowned self] in requestTimedOut() }
        } else {
            idleSince = .now
            guard timerPurpose != .idle else { return }
            timerPurpose = .idle
            timer.start(after: configuration.idleTimeout) { [unowned self] in idleTimerFired() }
        }
    }

    /// The idle timer was armed when the connection first went idle; requests answered since
    /// then only moved `idleSince`, so the timer waits out what is left of the timeout.
    private func idleTimerFired() {
        guard state != .responding else {
            // A handler is answering: no idle timeout meanwhile; the answer arms it again.
            timerPurpose = .none
            return
        }
        let remaining = configuration.idleTimeout - idleSince.duration(to: .now)
        if remaining > .zero {
            timer.start(after: remaining) { [unowned self] in idleTimerFired() }
        } else {
            timerPurpose = .none
            forceClose()
        }
    }

    private func disarmTimer() {
        timerPurpose = .none
        timer.stop()
    }

    private func requestTimedOut() {
        timerPurpose = .none
        guard state == .awaitingHead || state == .readingBody else { return }
        refuse(ProblemDetails(status: .requestTimeout, detail: "The request was not received in time."), source: .readTimeout)
    }

    // MARK: Closing

    /// The client closed its side. An answer in progress is abandoned: the client cannot be
    /// waiting for it, and its upstream work should stop.
    private func peerClosed() {
        forceClose()
    }

    /// Shutdown began: idle connections close now, a busy one after its answer.
    func drain() {
        closeAfterAnswer = true
        if state == .awaitingHead && inbound.isEmpty { forceClose() }
    }

    /// The end of a shutdown's grace period: a request whose handler is still running (nothing
    /// of its answer is written yet) is answered `503` with `Connection: close` instead of an
    /// empty reply, and the handler is cancelled. Any other connection just closes. Returns
    /// whether a request was cut short.
    func cutShort() -> Bool {
        guard state == .responding, let (head, context) = awaitingHandler.take() else {
            forceClose()
            return false
        }
        handlerTask?.cancel()
        handlerTask = nil
        releaseRequestSlot()
        var response = ProblemDetails(
            status: .serviceUnavailable, detail: "The service shut down before this request was answered; try again."
        ).response(headers: ["Retry-After": "1", "Cache-Control": "no-store"])
        if !context.route.isEmpty { response.route = context.route }
        answerObserver?(&response, AnsweredRequest(head: head, context: context, source: .shutdown))
        write(response, method: head.method, version: head.version, keepAlive: false)
        state = .closed
        disarmTimer()
        stream.closeAfterFlush()
        return true
    }

    func forceClose() {
        guard state != .closed || !stream.isClosing else { return }
        state = .closed
        handlerTask?.cancel()
        handlerTask = nil
        stream.close()
    }

    private func releaseRequestSlot() {
        guard holdsRequestSlot else { return }
        holdsRequestSlot = false
        owner.server.requests.release()
    }

    private func closed() {
        state = .closed
        releaseRequestSlot()
        timer.cancel()
        handlerTask?.cancel()
        handlerTask = nil
        owner.connectionClosed(self)
    }
}
