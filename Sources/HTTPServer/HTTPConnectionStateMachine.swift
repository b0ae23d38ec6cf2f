import HTTP1

/// The rules of one server connection, without the socket: requests parsed as bytes arrive, one
/// answered at a time and in order (pipelined ones wait in `inbound`), keep-alive, the read, idle
/// and write timeouts, read backpressure and the shutdown rules. `HTTPConnection` feeds it events
/// and does what it returns. Pure: time comes in as `now` on the server's time line, so the
/// timeout rules are tested exactly, with no clock.
///
/// The actions are small enums of plain values: the request itself is taken with `takeRequest`
/// (moved, not copied; a copy of a head retains each of its parts).
struct HTTPConnectionStateMachine {
    enum State: Equatable {
        /// Between requests, or inside one's head.
        case awaitingHead
        /// The head is complete; its body is being read.
        case readingBody
        /// A request is being answered; bytes behind it wait.
        case responding
        case closed
    }

    /// What the buffered bytes gave.
    enum ParseAction: Equatable {
        /// A request is complete: `dispatching()`, then `takeRequest()`, and answer it.
        case request
        /// The bytes were refused: answer the error's status, then `closeAfterWriting(now:)`.
        case refuse(HTTPParseError)
        /// More bytes are needed: send `100 Continue` first when asked, and do as `timer` says.
        case needMoreData(sendContinue: Bool, timer: TimerAction)
        /// Not reading requests now (one is being answered, or the connection is closed).
        case none
    }

    /// What to do with the connection's one timer.
    enum TimerAction: Equatable {
        case none
        /// (Re)arm it to fire after this long.
        case arm(after: Duration)
        case stop
    }

    /// What a shutdown's drain does to the connection.
    enum DrainAction: Equatable {
        /// Busy (a request received or begun): it closes after its answer.
        case none
        /// Idle, nothing left to write: close now.
        case close
        /// Idle, but an answer given before is still queued: close once it is written, or when
        /// the timer fires.
        case closeAfterWriting(timer: TimerAction)
    }

    /// What the end of a shutdown's grace period does to the connection.
    enum GraceEndAction: Equatable {
        /// A request is still arriving: answer it `503`, then `closeAfterWriting(now:)`.
        case refuseRequestArriving
        /// A request is being answered: when its handler has not answered yet, answer `503` in
        /// its place, then `closeAfterWriting(now:)`.
        case cutShortAnswer
        /// Nothing is left to answer: close once the output already queued is written, or when
        /// the timer fires.
        case closeAfterWriting(timer: TimerAction)
    }

    /// What the timer firing means.
    enum TimerFiredAction: Equatable {
        case none
        /// Not due yet (idle since later than the timer was armed for, or a write deadline
        /// ahead): wait out what is left.
        case arm(after: Duration)
        /// Idle for the whole idle timeout, or output left untaken for the write timeout: close.
        case close
        /// A request was not received within the read timeout: answer `408`, then
        /// `closeAfterWriting(now:)`.
        case requestTimedOut
    }

    /// What a read did to reading.
    enum ReceiveAction: Equatable {
        /// Parse what is buffered (`parseNext(now:)` until it says to wait).
        case parse
        /// Nothing now: the bytes wait behind the answer being given.
        case none
        /// Too many bytes wait behind the answer being given: stop reading until it is written.
        case stopReading
    }

    /// Whether to read, once output was written, and what that does to the timer.
    enum ReadingAction: Equatable {
        case none
        case start(timer: TimerAction)
        case stop(timer: TimerAction)
    }

    /// How an answer ends.
    enum AnswerAction: Equatable {
        /// The connection stays open: write the answer, then parse what is buffered.
        case keepAlive
        /// Write the answer with `Connection: close`, then `closeAfterWriting(now:)`.
        case close
        /// Nothing to write to (the connection closed meanwhile).
        case drop
    }

    /// Which timeout the timer is armed for.
    private enum TimerPurpose {
        case none, idle, request
        /// The client has output to take before the connection can go on (`Timeouts.write`).
        case write
    }

    struct Timeouts: Equatable {
        var requestRead: Duration
        var idle: Duration
        /// How long a connection waits for the client to take its output: the last answer of a
        /// closing connection, or output queued past the limit while reading is paused. The idle
        /// timeout, not a setting of its own: a client that takes
        /// nothing for as long as an idle connection may stay open is as gone as one that sends
        /// nothing; and not the read timeout, which bounds sending one request, while the output
        /// waiting may be a large answer or many pipelined ones.
        var write: Duration
        /// How long, once a shutdown's grace period has ended, the connection may still take to
        /// write what it was given (`ServerConfiguration.shutdownWriteTimeout`).
        var afterGrace: Duration
    }

    private(set) var state = State.awaitingHead
    private var parser: HTTPRequestParser
    /// Bytes received and not yet parsed (pipelined requests behind the one being answered).
    private(set) var inbound: [UInt8] = []
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private let timeouts: Timeouts
    private let maxBufferedInputBytes: Int
    private let maxQueuedOutputBytes: Int
    private var timerPurpose = TimerPurpose.none
    /// Shutdown began: the answers given now end the connection (after the requests it has
    /// already received).
    private(set) var closesAfterAnswer = false
    /// When the connection last became idle. The idle timer is not re-armed per request (two
    /// timer-heap operations per answer): when it fires it checks this.
    private var idleSince = Duration.zero
    /// When the read timeout of the request being received ends.
    private var requestDeadline = Duration.zero
    /// When the client must have taken the output the connection waits on.
    private var writeDeadline = Duration.zero
    /// Since when reading has been paused because the client leaves too much output untaken;
    /// nil while reading.
    private var readingPausedSince: Duration?
    /// Once a shutdown's grace period has ended, when the connection closes whatever it still has
    /// to write: no write deadline is later.
    private var graceEndDeadline: Duration?

    init(configuration: ServerConfiguration) {
        parser = HTTPRequestParser(limits: configuration.limits)
        timeouts = Timeouts(
            requestRead: configuration.requestReadTimeout, idle: configuration.idleTimeout, write: configuration.idleTimeout,
            afterGrace: configuration.shutdownWriteTimeout)
        maxBufferedInputBytes = configuration.maxBufferedInputBytes
        maxQueuedOutputBytes = configuration.maxQueuedOutputBytes
    }

    /// Whether requests are being read (not answered, not closed).
    var isReading: Bool { state == .awaitingHead || state == .readingBody }

    /// Whether a request has begun arriving and is not complete yet. The parser consumes whole
    /// lines: a request whose lines so far came complete has begun with nothing left in `inbound`.
    var isReceivingRequest: Bool {
        state == .readingBody || (state == .awaitingHead && (!inbound.isEmpty || parser.hasBegunMessage))
    }

    // MARK: Input

    mutating func received(_ bytes: UnsafeRawBufferPointer) -> ReceiveAction {
        switch state {
        case .awaitingHead, .readingBody:
            inbound.append(contentsOf: bytes)
            return .parse
        case .responding:
            inbound.append(contentsOf: bytes)
            return inbound.count > maxBufferedInputBytes ? .stopReading : .none
        case .closed:
            return .none
        }
    }

    /// Parses buffered bytes until a request is complete, more bytes are needed, or the input is
    /// refused; drops the bytes consumed. Waiting for more arms the right timer. `now` is read
    /// only then: a request found complete needs no time.
    mutating func parseNext(now: @autoclosure () -> Duration) -> ParseAction {
        guard isReading else { return .none }
        var consumed = 0
        var sendContinue = false
        var outcome = ParseAction.none
        inbound.withUnsafeBytes { all in
            while true {
                let input = UnsafeRawBufferPointer(rebasing: all[consumed...])
                let event: HTTPRequestParser.Event
                do throws(HTTPParseError) {
                    let used: Int
                    (event, used) = try parser.parse(input)
                    consumed += used
                } catch {
                    outcome = .refuse(error)
                    return
                }
                // Consumed, so a parsed head moves into `head` instead of being copied.
                switch consume event {
                case .needMoreData:
                    return
                case .head(let parsed):
                    head = parsed
                    body.removeAll(keepingCapacity: true)
                    state = .readingBody
                    sendContinue = parsed.expectsContinue && parsed.framing != .none && consumed == all.count
                case .body(let range):
                    body.append(contentsOf: input[range])
                case .end:
                    outcome = .request
                    return
                }
            }
        }
        if consumed == inbound.count {
            inbound.removeAll(keepingCapacity: true)
        } else if consumed > 0 {
            inbound.removeFirst(consumed)
        }
        switch outcome {
        case .request:
            state = .responding
            return .request
        case .refuse:
            state = .closed
            timerPurpose = .none
            return outcome
        default:
            return .needMoreData(sendContinue: sendContinue, timer: armTimer(now: now()))
        }
    }

    /// The request `parseNext` found complete is about to be answered: what happens to the timer.
    /// An armed idle timer stays armed (it lets a request being answered be; stopping and
    /// re-arming it cost two timer-heap operations per request); a read timer was this request's,
    /// and the next request, perhaps begun in the same read, gets its own.
    mutating func dispatching() -> TimerAction {
        stopRequestTimer()
    }

    /// The request `parseNext` found complete, moved out. Apart from `dispatching()`: returned in
    /// a tuple with the timer action, it was copied out of the tuple (a retain per part).
    mutating func takeRequest() -> HTTPRequest? {
        guard let head = head.take() else { return nil }
        return HTTPRequest(head: head, body: body)
    }

    /// The head of a refused request, when the refusal came after it (or the parser kept it).
    mutating func takeRefusedHead() -> HTTPRequestHead? {
        head.take() ?? parser.refusedHead
    }

    // MARK: Answers

    /// The answer to the request being answered is ready. Winding down, a connection still
    /// answers the requests it has already received (pipelined behind this one); the last
    /// answer says `Connection: close`.
    mutating func answering(requestKeepAlive: Bool, draining: Bool) -> AnswerAction {
        guard state == .responding else { return .drop }
        let windingDown = closesAfterAnswer || draining
        guard requestKeepAlive && (!windingDown || !inbound.isEmpty) else {
            closing()
            return .close
        }
        state = .awaitingHead
        parser.reset()
        return .keepAlive
    }

    /// The kernel took queued output (or an answer was just written): read on unless too much
    /// output is still waiting. While reading is paused for that, the client is not late with a
    /// request (its bytes may wait unread in the kernel): the read or idle timer gives way to the
    /// write timeout, which bounds the client leaving our output untaken, and a read timeout
    /// goes on with what it had left once reading resumes. `now` is read only then.
    mutating func readingAfterWrite(queuedOutputBytes: Int, now: @autoclosure () -> Duration) -> ReadingAction {
        guard isReading else { return .none }
        let tooMuchQueued = queuedOutputBytes > maxQueuedOutputBytes
        guard let pausedSince = readingPausedSince else {
            guard tooMuchQueued else { return .start(timer: .none) }
            let now = now()
            readingPausedSince = now
            return .stop(timer: armWriteTimer(now: now))
        }
        guard !tooMuchQueued else { return .stop(timer: .none) }
        readingPausedSince = nil
        let now = now()
        guard isReceivingRequest else {
            timerPurpose = .none
            return .start(timer: armTimer(now: now))
        }
        requestDeadline += now - pausedSince
        timerPurpose = .request
        return .start(timer: .arm(after: max(requestDeadline - now, .zero)))
    }

    // MARK: Timers

    /// Idle with nothing buffered: the idle timeout, armed once per idle spell (later answers
    /// move `idleSince`). A request begun: the read timeout, counted from its first byte and not
    /// restarted by later bytes (a trickling client loses).
    mutating func armTimer(now: Duration) -> TimerAction {
        // Paused for output, the write timeout runs (`readingAfterWrite`).
        guard isReading, readingPausedSince == nil else { return .none }
        if isReceivingRequest {
            guard timerPurpose != .request else { return .none }
            timerPurpose = .request
            requestDeadline = now + timeouts.requestRead
            return .arm(after: timeouts.requestRead)
        }
        idleSince = now
        guard timerPurpose != .idle else { return .none }
        timerPurpose = .idle
        return .arm(after: timeouts.idle)
    }

    mutating func timerFired(now: Duration) -> TimerFiredAction {
        let purpose = timerPurpose
        timerPurpose = .none
        switch purpose {
        case .none:
            return .none
        case .request:
            guard isReading else { return .none }
            state = .closed
            return .requestTimedOut
        case .write:
            guard now >= writeDeadline else {
                timerPurpose = .write
                return .arm(after: writeDeadline - now)
            }
            closing()
            return .close
        case .idle:
            // A request is being answered: no idle timeout meanwhile; the answer arms it again.
            guard isReading else { return .none }
            let remaining = timeouts.idle - (now - idleSince)
            guard remaining <= .zero else {
                timerPurpose = .idle
                return .arm(after: remaining)
            }
            closing()
            return .close
        }
    }

    private mutating func stopRequestTimer() -> TimerAction {
        guard timerPurpose == .request else { return .none }
        timerPurpose = .none
        return .stop
    }

    // MARK: Closing

    /// Shutdown began: an idle connection (no request begun) closes, a busy one after its answer.
    /// A request still arriving counts as busy even with nothing buffered: the parser has
    /// consumed its first lines. An idle connection whose last answer is still queued for the
    /// client closes once it is written, under the write deadline: closing at once discarded
    /// that answer. `now` is read only then.
    mutating func drain(queuedOutputBytes: Int, now: @autoclosure () -> Duration) -> DrainAction {
        closesAfterAnswer = true
        guard state == .awaitingHead && !isReceivingRequest else { return .none }
        guard queuedOutputBytes > 0 else { return .close }
        guard timerPurpose != .write else {
            // Reading paused for that output: its write deadline already runs, and stays.
            state = .closed
            return .closeAfterWriting(timer: .none)
        }
        return .closeAfterWriting(timer: closeAfterWriting(now: now()))
    }

    /// The connection's last answer (one that closes it, a refusal, a shutdown's `503`) is
    /// handed to the socket, which closes once it is written: nothing more is read or answered.
    /// The timer bounds the writing; without it a client that never reads kept the socket, its
    /// output and a connection slot for ever, and a shutdown waited for it.
    mutating func closeAfterWriting(now: Duration) -> TimerAction {
        state = .closed
        return armWriteTimer(now: now)
    }

    /// The end of a shutdown's grace period: the connection says what it still has to answer,
    /// and from now on none of its output waits past `Timeouts.afterGrace` (an answer queued
    /// before, or the `503` it is about to write). Without that bound a client that never reads
    /// held the shutdown for the whole write timeout, the idle timeout, after the grace period.
    mutating func graceEnded(now: Duration) -> GraceEndAction {
        closesAfterAnswer = true
        graceEndDeadline = now + timeouts.afterGrace
        if isReceivingRequest { return .refuseRequestArriving }
        if state == .responding { return .cutShortAnswer }
        if state == .closed, timerPurpose == .write, writeDeadline <= now + timeouts.afterGrace {
            return .closeAfterWriting(timer: .none)
        }
        return .closeAfterWriting(timer: closeAfterWriting(now: now))
    }

    private mutating func armWriteTimer(now: Duration) -> TimerAction {
        timerPurpose = .write
        writeDeadline = min(now + timeouts.write, graceEndDeadline ?? now + timeouts.write)
        return .arm(after: max(writeDeadline - now, .zero))
    }

    /// The connection is closing (by any side, for any reason): nothing more is read or answered.
    mutating func closing() {
        state = .closed
        timerPurpose = .none
    }
}
