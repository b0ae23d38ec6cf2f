import PureTestSupport
import Testing
import Timekeeping
@testable import CatalogStub

/// The worker pool's rules, stepped on a manual clock: FIFO, the service time on the pool's own
/// line, and work that goes on when its caller leaves. No sockets, no timers, no sleeping.
@Suite struct WorkerPoolTests {
    static let service = Duration.milliseconds(20)

    /// Plays the shell: every start's end is a due date, and moving the clock finishes the ones
    /// due in order of their ends, as one timer each would.
    struct Driver {
        var pool: WorkerPool
        let clock = ManualTimeSource()
        private(set) var pending: [WorkerPool.Start] = []
        /// Each finish in the order it happened.
        private(set) var completions: [WorkerPool.Completion] = []

        init(workers: Int, service: Duration = WorkerPoolTests.service) {
            pool = WorkerPool(workers: workers, serviceTime: service)
        }

        mutating func arrive() -> WorkerPool.Arrival {
            let arrival = pool.arrive(now: clock.now)
            if case .started(let start) = arrival { pending.append(start) }
            return arrival
        }

        /// Moves the clock by `duration`, finishing what falls due on the way, each at its end.
        mutating func advance(by duration: Duration) {
            let end = clock.now + duration
            while let index = pending.indices.min(by: { pending[$0].until < pending[$1].until }), pending[index].until <= end {
                let start = pending.remove(at: index)
                clock.advance(by: start.until - clock.now)
                finish(start.ticket)
            }
            clock.advance(by: end - clock.now)
        }

        /// A timer that fired late: the finish is handled at `now`, past its end.
        mutating func finishLate(at now: Duration) {
            let index = pending.indices.min(by: { pending[$0].until < pending[$1].until })!
            let start = pending.remove(at: index)
            clock.advance(by: now - clock.now)
            finish(start.ticket)
        }

        private mutating func finish(_ ticket: WorkerPool.Ticket) {
            let completion = pool.finish(ticket)
            completions.append(completion)
            if let next = completion.next { pending.append(next) }
        }
    }

    @Test func requestsBeyondTheWorkersQueueAndStartInArrivalOrder() {
        var driver = Driver(workers: 2)
        let first = driver.arrive()
        let second = driver.arrive()
        #expect(first == .started(.init(ticket: first.ticket, until: .milliseconds(20))))
        #expect(second == .started(.init(ticket: second.ticket, until: .milliseconds(20))))
        driver.advance(by: .milliseconds(5))
        let third = driver.arrive()
        let fourth = driver.arrive()
        #expect(third == .queued(third.ticket, ahead: 0))
        #expect(fourth == .queued(fourth.ticket, ahead: 1))
        #expect(driver.pool.busy == 2)
        #expect(driver.pool.queued == 2)

        driver.advance(by: .milliseconds(15))
        // Both workers freed at 20 ms and went to the waiting requests, oldest first.
        #expect(driver.completions.map(\.ticket) == [first.ticket, second.ticket])
        #expect(driver.completions.map(\.next) == [
            .init(ticket: third.ticket, until: .milliseconds(40)), .init(ticket: fourth.ticket, until: .milliseconds(40)),
        ])
        #expect(driver.pool.queued == 0)
        #expect(driver.pool.busy == 2)

        driver.advance(by: .milliseconds(20))
        #expect(driver.completions.map(\.ticket) == [first, second, third, fourth].map(\.ticket))
        #expect(driver.completions.allSatisfy { !$0.callerGone })
        #expect(driver.pool.served == 4)
        #expect(driver.pool.busy == 0)
        // N + 1 requests on N workers: the last one answered two service times after they came.
        let last = driver.arrive()
        #expect(last == .started(.init(ticket: last.ticket, until: .milliseconds(60))))
    }

    @Test func aLateTimerDelaysTheAnswerButNotTheWorkBehindIt() {
        var driver = Driver(workers: 1)
        _ = driver.arrive()
        let waiting = driver.arrive()
        // The timer for 20 ms fires at 27 ms: the waiting request started when the worker was
        // free, at 20 ms, so its end stays at 40 ms.
        driver.finishLate(at: .milliseconds(27))
        #expect(driver.completions.last?.next == .init(ticket: waiting.ticket, until: .milliseconds(40)))

        // A request that came after the worker's end but before its late timer starts when it
        // came, not when the timer fired.
        driver.advance(by: .milliseconds(13))
        #expect(driver.pool.busy == 0)
        #expect(driver.arrive() == .started(.init(ticket: .init(number: 2), until: .milliseconds(60))))
        driver.clock.advance(by: .milliseconds(25))
        let afterTheEnd = driver.arrive()
        #expect(afterTheEnd == .queued(afterTheEnd.ticket, ahead: 0))
        driver.finishLate(at: .milliseconds(70))
        #expect(driver.completions.last?.next == .init(ticket: afterTheEnd.ticket, until: .milliseconds(85)))
    }

    @Test func aBacklogIsServedAtWorkersOverServiceTime() {
        // 16 workers of 20 ms: 800 a second. 1,000 requests at once end after ceil(1000 / 16)
        // rounds of 20 ms, the last at 1,260 ms, with timers that each fire 3 ms late.
        var driver = Driver(workers: 16)
        for _ in 0..<1_000 { _ = driver.arrive() }
        #expect(driver.pool.busy == 16)
        #expect(driver.pool.queued == 984)
        var latestEnd = Duration.zero
        while !driver.pending.isEmpty {
            let next = driver.pending.map(\.until).min()!
            driver.finishLate(at: next + .milliseconds(3))
            latestEnd = max(latestEnd, driver.completions.last?.next?.until ?? .zero)
            #expect(driver.pool.busy <= 16)
        }
        #expect(latestEnd == .milliseconds(1_260))
        #expect(driver.pool.served == 1_000)
        #expect(driver.pool.queued == 0)
        // Started in arrival order.
        let starts = driver.completions.compactMap(\.next).map(\.ticket.number)
        #expect(starts == starts.sorted())
    }

    @Test func aCallerThatLeavesWhileWaitingKeepsItsTurnAndItsWorkersWholeTime() {
        var driver = Driver(workers: 1)
        let serving = driver.arrive()
        let gone = driver.arrive()
        let behind = driver.arrive()
        #expect(driver.pool.leave(gone.ticket) == .workContinues)
        #expect(driver.pool.queued == 2)

        driver.advance(by: .milliseconds(20))
        #expect(driver.completions.last == .init(ticket: serving.ticket, callerGone: false, next: .init(ticket: gone.ticket, until: .milliseconds(40))))
        driver.advance(by: .milliseconds(20))
        // Nobody is there for its answer, but it held the worker until 40 ms all the same.
        #expect(driver.completions.last == .init(ticket: gone.ticket, callerGone: true, next: .init(ticket: behind.ticket, until: .milliseconds(60))))
        driver.advance(by: .milliseconds(20))
        #expect(driver.pool.served == 3)
        #expect(driver.pool.servedForGone == 1)
    }

    @Test func aCallerThatLeavesDuringItsServiceCountsAsGoneAtTheEnd() {
        var driver = Driver(workers: 1)
        let arrival = driver.arrive()
        driver.advance(by: .milliseconds(10))
        #expect(driver.pool.leave(arrival.ticket) == .workContinues)
        #expect(driver.pool.busy == 1)
        #expect(driver.pool.servedForGone == 0)
        driver.advance(by: .milliseconds(10))
        #expect(driver.completions == [.init(ticket: arrival.ticket, callerGone: true, next: nil)])
        #expect(driver.pool.servedForGone == 1)
        // Leaving after the end changes nothing.
        #expect(driver.pool.leave(arrival.ticket) == .alreadyServed)
        #expect(driver.pool.servedForGone == 1)
    }

    @Test func anAnswerThatCouldNotBeWrittenCountsAsGoneAndResetKeepsTheGauges() {
        var driver = Driver(workers: 1)
        _ = driver.arrive()
        _ = driver.arrive()
        driver.advance(by: .milliseconds(20))
        driver.pool.answerUndeliverable()
        #expect(driver.pool.served == 1)
        #expect(driver.pool.servedForGone == 1)
        driver.pool.resetCounts()
        #expect(driver.pool.served == 0)
        #expect(driver.pool.servedForGone == 0)
        #expect(driver.pool.busy == 1)
    }

    @Test func withoutALimitOnlyTheServiceTimeApplies() {
        var driver = Driver(workers: Int.max)
        let arrivals = (0..<100).map { _ in driver.arrive() }
        #expect(arrivals.allSatisfy { if case .started(let start) = $0 { start.until == .milliseconds(20) } else { false } })
        #expect(driver.pool.queued == 0)
        driver.advance(by: .milliseconds(20))
        #expect(driver.pool.served == 100)
    }

    @Test func theQueueStaysFIFOAcrossItsCompaction() {
        // Enough turnover to drop spent slots several times, with leaves sprinkled in.
        var driver = Driver(workers: 3, service: .milliseconds(1))
        var random = SeededRandom(seed: 51)
        var arrived: [WorkerPool.Ticket] = []
        var left: Set<UInt64> = []
        for _ in 0..<20 {
            for _ in 0..<500 {
                let arrival = driver.arrive()
                arrived.append(arrival.ticket)
                if random.below(10) == 0 {
                    _ = driver.pool.leave(arrival.ticket)
                    left.insert(arrival.ticket.number)
                }
            }
            driver.advance(by: .milliseconds(100))
        }
        driver.advance(by: .seconds(10))
        #expect(driver.completions.map(\.ticket) == arrived)
        #expect(driver.completions.filter(\.callerGone).map(\.ticket.number).sorted() == left.sorted())
        #expect(driver.pool.served == 10_000)
        #expect(driver.pool.servedForGone == left.count)
    }
}
