import EventLoop
import HTTP1
import Timekeeping

/// One client connection, as `HTTPConnectionStateMachine` decides: this shell owns the stream,
/// the timer, the handler task and the writing of answers. Pipelined requests wait in the
/// machine until the answer before them is written, so answers never overtake each other.
/// Loop-confined.
final class HTTPConnection {
    private let stream: TCPStream
    private unowned let owner: LoopServer
    /// What every request reads, taken from the server once: each read through the `unowned`
    /// owner and server was a `swift_unownedRetainStrong` and a release.
    private let loop: EventLoop
    private let dates: HTTPDateCache
    private let time: any TimeSource
    private let maxInFlightRequests: Int
    private let responder: Responder
    private let answerObserver: AnswerObserver?
    private let resetAfterBodyBytes: (@Sendable (RequestContext) -> Int?)?
    private var machine: HTTPConnectionStateMachine
    private var outbound: [UInt8] = []
    private let timer: LoopTimer
    private var handlerTask: Task<Void, Never>?
    /// The promise of a deferred answer not yet kept, to abandon when the request is.
    private var promise: AnswerPromise?
    /// The request its handler is answering, until the answer is given: by the handler, or by
    /// `cutShort` at the end of a shutdown (then the handler's late answer is dropped).
    private var awaitingHandler: (head: HTTPRequestHead, context: RequestContext)?
    /// Whether this connection's request counts toward the server's in-flight limit.
    private var holdsRequestSlot = false
    /// True while `process` runs, so an answer given synchronously does not re-enter it.
    private var isProcessing = false

    init(stream: TCPStream, owner: LoopServer) {
        self.stream = stream
        self.owner = owner
        let configuration = owner.configuration
        maxInFlightRequests = configuration.maxInFlightRequests
        loop = owner.loop
        dates = owner.dates
        time = owner.server.time
        responder = owner.server.responder
        answerObserver = owner.server.answerObserver
        resetAfterBodyBytes = owner.server.resetAfterBodyBytes
        machine = HTTPConnectionStateMachine(configuration: configuration)
        timer = LoopTimer(loop: loop)
    }

    func start() {
        stream.setNoDelay()
        stream.onRead = { [unowned self] bytes in received(bytes) }
        stream.onReadEnd = { [unowned self] _ in peerClosed() }
        stream.onWritesFlushed = { [unowned self] in resumeReadingIfPossible() }
        stream.onClose = { [self] in closed() }
        stream.startReading()
        perform(machine.armTimer(now: time.now))
    }

    // MARK: Input

    private func received(_ bytes: UnsafeRawBufferPointer) {
        switch machine.received(bytes) {
        case .parse: process()
        case .stopReading: stream.stopReading()
        case .none: break
        }
    }

    /// Parses as far as the buffered bytes go. A complete request is dispatched; when it is
    /// answered at once (an immediate answer, an overload refusal) parsing goes on with the
    /// requests pipelined behind it, in this loop rather than by recursion.
    private func process() {
        // An answer given inside the loop below comes back here through `answer`.
        guard !isProcessing else { return }
        isProcessing = true
        defer { isProcessing = false }
        while true {
            switch machine.parseNext(now: time.now) {
            case .request:
                dispatch()
            case .refuse(let error):
                refuse(ProblemDetails(status: error.status, detail: error.detail).response(), source: .malformedRequest)
            case .needMoreData(let sendContinue, let timerAction):
                if sendContinue { stream.write(Self.continueLine) }
                perform(timerAction)
                return
            case .none:
                return
            }
        }
    }

    private static let continueLine = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    // MARK: Handling

    private func dispatch() {
        perform(machine.dispatching())
        guard var request = machine.takeRequest() else { return }
        var context = RequestContext(loop: loop, receivedAt: .now)
        // Switched on as returned: a copy of the answer kept alive beside the response would
        // share its field block, and the observer's first field would copy it.
        let waiting: ResponderAnswer
        switch responder(&request, &context) {
        case .now(let response):
            // Answered before this returns to the loop, so no timer can fire meanwhile.
            answer(response, to: request.head, context: context, source: .responder)
            return
        case .waiting(let handler):
            waiting = .waiting(handler)
        case .promised(let start):
            waiting = .promised(start)
        }
        guard owner.server.requests.admit(limit: maxInFlightRequests) else {
            // Overloaded: say so at once instead of queueing work that would answer too late.
            let problem = ProblemDetails(status: .serviceUnavailable, detail: "The service is at capacity; try again shortly.")
                .response(headers: ["Retry-After": "1", "Cache-Control": "no-store"])
            answer(problem, to: request.head, context: context, source: .overload)
            return
        }
        holdsRequestSlot = true
        awaitingHandler = (request.head, context)
        switch waiting {
        case .now:
            break
        case .waiting(let handler):
            startHandler(handler, request: consume request, context: consume context)
        case .promised(let start):
            // May be kept before `start` returns: then it is answered as `.now` would be.
            let promise = AnswerPromise(connection: self, request: consume request, context: consume context)
            self.promise = promise
            start(promise)
        }
    }

    /// A deferred request handed to a task by its promise, with its context as the promise left
    /// it: the answer's observer sees that one too.
    func handOn(_ handler: @escaping RouteHandler, request: HTTPRequest, context: RequestContext) {
        promise = nil
        // Nil when the shutdown answered for it before it was handed on.
        guard let head = awaitingHandler?.head else { return }
        awaitingHandler = (head, context)
        startHandler(handler, request: request, context: context)
    }

    /// Runs the handler of the request awaiting its answer.
    private func startHandler(_ handler: @escaping RouteHandler, request: consuming HTTPRequest, context: consuming RequestContext) {
        let bound = LoopBound(self, loop: loop)
        // A plain task preferring the loop: `Task.immediate` (run until the first suspension
        // right here) measured no different on the hot path and needs re-entrancy care.
        handlerTask = Task(executorPreference: loop) {
            let response = await handler(request, context)
            // Off the loop only when the loop stopped under a running handler (the process is
            // shutting down): the connection closed with the loop, so no one waits for this.
            guard bound.loop.inLoop else { return }
            bound.value.handlerAnswered(response)
        }
    }

    /// The answer of the request awaiting one, from its handler task or its ``AnswerPromise``.
    func handlerAnswered(_ response: consuming HTTPResponse) {
        promise = nil
        // Nil when the shutdown already answered for the handler.
        guard let (head, context) = awaitingHandler.take() else { return }
        answer(response, to: head, context: context, source: .responder)
    }

    /// Every answer to a parsed request comes here: the observer sees it (also when the client
    /// has gone and nothing is written), then it is written.
    private func answer(
        _ response: consuming HTTPResponse, to request: HTTPRequestHead, context: RequestContext, source: AnswerSource
    ) {
        handlerTask = nil
        releaseRequestSlot()
        var response = consume response
        answerObserver?(&response, request, context, source)
        guard machine.state == .responding else { return }
        if let cut = resetAfterBodyBytes, let prefix = cut(context) {
            var truncated = response
            truncated.body = response.body.prefix(prefix)
            truncated.headers.replaceOrAdd(name: "Content-Length", value: String(response.body.count))
            write(truncated, method: request.method, version: request.version, keepAlive: true)
            machine.closing()
            stream.reset()
            return
        }
        switch machine.answering(requestKeepAlive: request.keepAlive, draining: owner.isDraining) {
        case .keepAlive:
            write(response, method: request.method, version: request.version, keepAlive: true)
            process()
            resumeReadingIfPossible()
        case .close:
            write(response, method: request.method, version: request.version, keepAlive: false)
            closeAfterWriting()
        case .drop:
            return
        }
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

    private func closeAfterWriting() {
        close(afterFlushWithin: machine.closeAfterWriting(now: time.now))
    }

    /// Closes once the queued output is written; `timer` (the machine's write deadline) bounds that.
    private func close(afterFlushWithin timer: HTTPConnectionStateMachine.TimerAction) {
        perform(timer)
        stream.closeAfterFlush()
    }

    private func resumeReadingIfPossible() {
        switch machine.readingAfterWrite(queuedOutputBytes: stream.queuedWriteBytes, now: time.now) {
        case .start(let timerAction):
            stream.startReading()
            perform(timerAction)
        case .stop(let timerAction):
            stream.stopReading()
            perform(timerAction)
        case .none:
            break
        }
    }

    /// The HTTP layer's own answer (a refused or timed-out request, one still arriving when a
    /// shutdown ends): observed like any other, then the connection closes. The head is there
    /// when the refusal came after it (a body too large, a bad chunk), so the client's request
    /// id and method are known.
    private func refuse(_ response: consuming HTTPResponse, source: AnswerSource) {
        var response = consume response
        let head = machine.takeRefusedHead()
        answerObserver?(&response, head, RequestContext(loop: loop, receivedAt: .now), source)
        write(response, method: head?.method ?? .get, version: .http1_1, keepAlive: false)
        closeAfterWriting()
    }

    // MARK: Timers

    private func perform(_ action: HTTPConnectionStateMachine.TimerAction) {
        switch action {
        case .none: break
        case .arm(let delay): timer.start(after: delay) { [unowned self] in timerFired() }
        case .stop: timer.stop()
        }
    }

    private func timerFired() {
        switch machine.timerFired(now: time.now) {
        case .none:
            break
        case .arm(let delay):
            timer.start(after: delay) { [unowned self] in timerFired() }
        case .close:
            // Output still queued means the client stopped taking it: a reset frees the socket
            // and its buffers now, where a close leaves the kernel retrying a peer that does not
            // read.
            forceClose(resetting: stream.queuedWriteBytes > 0)
        case .requestTimedOut:
            refuse(ProblemDetails(status: .requestTimeout, detail: "The request was not received in time.").response(), source: .readTimeout)
        }
    }

    // MARK: Closing

    /// The client closed its side. An answer in progress is abandoned: the client cannot be
    /// waiting for it, and its upstream work should stop. By design this includes a half-close
    /// (`SHUT_WR`) right after a request: end of stream is taken as the client leaving, as
    /// nginx takes it, so a route that answers later gives that request no answer (one answered
    /// at once is written before the end of stream is read).
    private func peerClosed() {
        forceClose()
    }

    /// Shutdown began: idle connections close now (once their queued output is written), a busy
    /// one (a request begun) after its answer.
    func drain() {
        switch machine.drain(queuedOutputBytes: stream.queuedWriteBytes, now: time.now) {
        case .none:
            break
        case .close:
            forceClose()
        case .closeAfterWriting(let timerAction):
            close(afterFlushWithin: timerAction)
        }
    }

    /// The end of a shutdown's grace period: a request whose handler is still running (nothing
    /// of its answer is written yet) is answered `503` with `Connection: close` instead of an
    /// empty reply, and the handler is cancelled; so is a request still arriving (its head begun
    /// or its body being read), which the drain kept open for it. Any other connection closes
    /// once its queued output is written. Whatever is still to be written, those `503`s too, has
    /// the machine's short bound after the grace period, not the write timeout. Returns whether
    /// a request was cut short.
    func cutShort() -> Bool {
        guard !stream.isClosing else { return false }
        switch machine.graceEnded(now: time.now) {
        case .refuseRequestArriving:
            refuse(Self.cutShortResponse(), source: .shutdown)
            return true
        case .cutShortAnswer:
            guard let (head, context) = awaitingHandler.take() else {
                closeAfterWriting()
                return false
            }
            handlerTask?.cancel()
            handlerTask = nil
            promise.take()?.abandon()
            releaseRequestSlot()
            var response = Self.cutShortResponse()
            answerObserver?(&response, head, context, .shutdown)
            write(response, method: head.method, version: head.version, keepAlive: false)
            closeAfterWriting()
            return true
        case .closeAfterWriting(let timerAction):
            // Closing at once discarded an answer still queued, such as a last one given during
            // the grace period to a client reading slowly.
            close(afterFlushWithin: timerAction)
            return false
        }
    }

    private static func cutShortResponse() -> HTTPResponse {
        ProblemDetails(
            status: .serviceUnavailable, detail: "The service shut down before this request was answered; try again."
        ).response(headers: ["Retry-After": "1", "Cache-Control": "no-store"])
    }

    func forceClose(resetting: Bool = false) {
        guard machine.state != .closed || !stream.isClosing else { return }
        machine.closing()
        handlerTask?.cancel()
        handlerTask = nil
        promise.take()?.abandon()
        if resetting { stream.reset() } else { stream.close() }
    }

    private func releaseRequestSlot() {
        guard holdsRequestSlot else { return }
        holdsRequestSlot = false
        owner.server.requests.release()
    }

    private func closed() {
        machine.closing()
        releaseRequestSlot()
        timer.cancel()
        handlerTask?.cancel()
        handlerTask = nil
        promise.take()?.abandon()
        owner.connectionClosed(self)
    }
}
