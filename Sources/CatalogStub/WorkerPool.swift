/// One route's workers as a thread-pool backend runs them (`STUB_WORKERS`, `STUB_SERVICE_MS`),
/// without timers or locks: events in (`arrive`, `finish`, `leave`), what to do out. Times are
/// values on the caller's time line, so a test steps it on a manual clock.
///
/// A request takes a free worker for `serviceTime`, or waits in a FIFO queue for one. Like a
/// backend whose threads cannot be interrupted it never drops work: a request whose caller left
/// keeps its place in the queue and, once it starts, its worker for the whole service time, and
/// it counts as served for a caller that had gone.
///
/// Service is timed on the pool's own line, not on when the shell's timers happen to fire: a
/// worker is free again at its start plus the service time, and the next request starts then
/// (or when it arrived, if later). A late timer delays an answer but not the work behind it, so
/// the pool serves `workers / serviceTime` requests a second however busy the host is.
struct WorkerPool: Sendable {
    /// A request's place. Numbers go up in arrival order, and since the queue is FIFO requests
    /// also start in number order: whether one still waits is a comparison, not a search.
    struct Ticket: Hashable, Sendable {
        let number: UInt64
    }

    /// A request on a worker until `until`, when the shell must call `finish`.
    struct Start: Equatable, Sendable {
        let ticket: Ticket
        let until: Duration
    }

    enum Arrival: Equatable, Sendable {
        /// A worker was free: the request holds it from now.
        case started(Start)
        /// Every worker is busy: the request waits behind `ahead` others.
        case queued(Ticket, ahead: Int)

        var ticket: Ticket {
            switch self {
            case .started(let start): start.ticket
            case .queued(let ticket, _): ticket
            }
        }
    }

    /// A request whose service time is over, and the one that takes its worker next, if any.
    struct Completion: Equatable, Sendable {
        let ticket: Ticket
        /// The caller left before the work was done: the answer has nobody to go to.
        let callerGone: Bool
        let next: Start?
    }

    enum Departure: Equatable, Sendable {
        /// The request still waits or is being served: its work goes on regardless.
        case workContinues
        /// Its service was over already (or it was never here): nothing changes.
        case alreadyServed
    }

    /// `Int.max` for no limit (every request starts at once and only the service time applies).
    let workers: Int
    let serviceTime: Duration

    /// Requests finished since the start or the last `resetCounts`, whether or not their caller
    /// was still there.
    private(set) var served = 0
    /// Of those, the ones whose caller had gone before their answer could be written.
    private(set) var servedForGone = 0

    /// The service end of each request on a worker, and whether its caller left.
    private var inService: [UInt64: (until: Duration, gone: Bool)] = [:]
    /// Arrival times of the waiting requests, numbers `nextToStart ..< nextNumber`, oldest at
    /// `head` (slots before it are spent and dropped in bulk).
    private var waiting: [Duration] = []
    private var head = 0
    /// Waiting requests whose caller left; they stay in line.
    private var goneWhileWaiting: Set<UInt64> = []
    private var nextNumber: UInt64 = 0
    private var nextToStart: UInt64 = 0

    init(workers: Int, serviceTime: Duration) {
        precondition(workers >= 1, "a pool has at least one worker (Int.max for no limit)")
        precondition(serviceTime >= .zero, "a service time is not negative")
        self.workers = workers
        self.serviceTime = serviceTime
    }

    /// Requests waiting for a worker right now.
    var queued: Int { waiting.count - head }

    /// Workers serving a request right now.
    var busy: Int { inService.count }

    mutating func arrive(now: Duration) -> Arrival {
        let ticket = Ticket(number: nextNumber)
        nextNumber += 1
        // `finish` hands a freed worker to the head of the queue at once, so a free worker means
        // an empty queue; checked all the same, since the start order must be the number order.
        if queued == 0 && inService.count < workers {
            nextToStart = nextNumber
            return .started(begin(ticket, at: now))
        }
        waiting.append(now)
        return .queued(ticket, ahead: queued - 1)
    }

    /// The service time of `ticket` is over (the shell's timer for its `until` fired).
    mutating func finish(_ ticket: Ticket) -> Completion {
        guard let finished = inService.removeValue(forKey: ticket.number) else {
            preconditionFailure("finish for request \(ticket.number), which holds no worker")
        }
        served += 1
        if finished.gone { servedForGone += 1 }
        var next: Start?
        if queued > 0 {
            let arrived = waiting[head]
            head += 1
            if head >= 1024 && head * 2 >= waiting.count {
                waiting.removeFirst(head)
                head = 0
            }
            let ticket = Ticket(number: nextToStart)
            nextToStart += 1
            let start = begin(ticket, at: max(arrived, finished.until))
            if goneWhileWaiting.remove(ticket.number) != nil { inService[ticket.number]?.gone = true }
            next = start
        }
        return Completion(ticket: ticket, callerGone: finished.gone, next: next)
    }

    /// The caller of `ticket` went away (its connection closed).
    mutating func leave(_ ticket: Ticket) -> Departure {
        if inService[ticket.number] != nil {
            inService[ticket.number]?.gone = true
            return .workContinues
        }
        guard ticket.number >= nextToStart, ticket.number < nextNumber else { return .alreadyServed }
        goneWhileWaiting.insert(ticket.number)
        return .workContinues
    }

    /// A completion went to a caller that was there, but its connection closed before the answer
    /// could be written: that work too was for a caller that had gone.
    mutating func answerUndeliverable() {
        servedForGone += 1
    }

    /// Zeroes `served` and `servedForGone`; the queue and the workers are left as they are.
    mutating func resetCounts() {
        served = 0
        servedForGone = 0
    }

    private mutating func begin(_ ticket: Ticket, at start: Duration) -> Start {
        let until = start + serviceTime
        inService[ticket.number] = (until, false)
        return Start(ticket: ticket, until: until)
    }
}
