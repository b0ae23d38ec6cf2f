import HTTP1
@testable import HTTPServer

/// Steps an `HTTPConnectionStateMachine` on a hand-moved time line, playing the shell's part:
/// it keeps the one timer's deadline, fires it when time reaches it, and answers requests when
/// the test says so. No sockets, no clock.
struct ConnectionMachineDriver {
    typealias Machine = HTTPConnectionStateMachine

    var machine: Machine
    private(set) var now = Duration.zero
    /// When the armed timer fires; nil when it is stopped.
    private(set) var timerDeadline: Duration?
    /// Requests complete and waiting for `answer`, oldest first (only one at a time is taken).
    private(set) var answering: HTTPRequest?
    /// What happened, in order, as the shell would see it.
    private(set) var events: [String] = []
    private(set) var sentContinue = false
    private(set) var readingStopped = false

    init(configure: (inout ServerConfiguration) -> Void = { _ in }) {
        var configuration = ServerConfiguration()
        configure(&configuration)
        machine = Machine(configuration: configuration)
        perform(machine.armTimer(now: now))
    }

    var state: Machine.State { machine.state }

    /// Bytes arrive at the current time.
    mutating func receive(_ text: String) {
        let action = Array(text.utf8).withUnsafeBytes { machine.received($0) }
        switch action {
        case .parse: process()
        case .stopReading: readingStopped = true
        case .none: break
        }
    }

    /// Answers the request being answered, as a handler or an immediate responder would.
    mutating func answer(draining: Bool = false) {
        guard let request = answering.take() else { return }
        switch machine.answering(requestKeepAlive: request.head.keepAlive, draining: draining) {
        case .keepAlive:
            events.append("answered \(request.path)")
            process()
        case .close:
            events.append("answered \(request.path), closing")
            perform(machine.closeAfterWriting(now: now))
        case .drop:
            events.append("dropped \(request.path)")
        }
    }

    /// Output was written, and `queuedOutputBytes` of it still wait for the client to take it.
    mutating func wrote(queuedOutputBytes: Int) {
        switch machine.readingAfterWrite(queuedOutputBytes: queuedOutputBytes, now: now) {
        case .start(let timer):
            readingStopped = false
            perform(timer)
        case .stop(let timer):
            readingStopped = true
            perform(timer)
        case .none:
            break
        }
    }

    /// The shutdown begins now, with `queuedOutputBytes` of output still waiting for the client.
    mutating func drain(queuedOutputBytes: Int = 0) -> Machine.DrainAction {
        let action = machine.drain(queuedOutputBytes: queuedOutputBytes, now: now)
        if case .closeAfterWriting(let timer) = action { perform(timer) }
        return action
    }

    /// The shutdown's grace period ends now: a request still arriving, or whose answer is still
    /// awaited, gets its `503` written, as the shell does.
    mutating func endGrace() {
        switch machine.graceEnded(now: now) {
        case .refuseRequestArriving:
            events.append("503 to a request arriving, closing")
            perform(machine.closeAfterWriting(now: now))
        case .cutShortAnswer:
            events.append("503 for \(answering.take()?.path ?? "?"), closing")
            perform(machine.closeAfterWriting(now: now))
        case .closeAfterWriting(let timer):
            events.append("closing after writing")
            perform(timer)
        }
    }

    /// Moves time to `time`, firing the timer at each deadline on the way.
    mutating func advance(to time: Duration) {
        precondition(time >= now, "time only moves forward")
        while let deadline = timerDeadline, deadline <= time {
            now = deadline
            timerDeadline = nil
            switch machine.timerFired(now: now) {
            case .none: break
            case .arm(let delay): timerDeadline = now + delay
            case .close: events.append("closed at \(now)")
            case .requestTimedOut:
                events.append("408 at \(now)")
                perform(machine.closeAfterWriting(now: now))
            }
        }
        now = time
    }

    private mutating func process() {
        while answering == nil {
            switch machine.parseNext(now: now) {
            case .request:
                perform(machine.dispatching())
                let request = machine.takeRequest()
                answering = request
                if let request { events.append("request \(request.path)") }
            case .refuse(let error):
                events.append("refused \(error.status.code)")
                perform(machine.closeAfterWriting(now: now))
                return
            case .needMoreData(let sendContinue, let timer):
                sentContinue = sentContinue || sendContinue
                perform(timer)
                return
            case .none:
                return
            }
        }
    }

    private mutating func perform(_ action: Machine.TimerAction) {
        switch action {
        case .none: break
        case .arm(let delay): timerDeadline = now + delay
        case .stop: timerDeadline = nil
        }
    }
}
