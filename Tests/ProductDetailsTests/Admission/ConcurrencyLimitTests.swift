import Testing
@testable import ProductDetails

/// The adaptive limit against a simulated upstream of a fixed number of workers, each call
/// holding one for a fixed service time and waiting first come first served beyond them: the
/// limit must find the workers (all kept busy) without queueing much at them.
@Suite("Adaptive concurrency limit")
struct ConcurrencyLimitTests {
    /// A thread-pool upstream, on simulated time, driven by as much demand as the limit lets out.
    struct PoolUpstream {
        var workers: Int
        var service: Duration
        /// When each worker is next free.
        var freeAt: [Duration]
        /// Calls in flight: when each will end and when it started.
        var calls: [(end: Duration, start: Duration)] = []
        var served = 0

        init(workers: Int, service: Duration) {
            self.workers = workers
            self.service = service
            freeAt = Array(repeating: .zero, count: workers)
        }

        mutating func send(at now: Duration) {
            let worker = freeAt.indices.min { freeAt[$0] < freeAt[$1] }!
            let begins = max(now, freeAt[worker])
            freeAt[worker] = begins + service
            calls.append((begins + service, now))
        }
    }

    /// Runs `seconds` of saturating demand in 1 ms steps; returns the limits seen in the last
    /// second, the calls served per second then and their mean latency.
    static func saturate(
        _ limit: inout ConcurrencyLimit, _ upstream: inout PoolUpstream, from start: Duration = .zero, seconds: Int
    ) -> (limits: ClosedRange<Int>, perSecond: Int, meanLatency: Duration) {
        var now = start
        let end = start + .seconds(seconds)
        var lastSecond: [Int] = []
        var latencies: Duration = .zero
        var servedLastSecond = 0
        while now < end {
            now += .milliseconds(1)
            upstream.calls.sort { $0.end < $1.end }
            while let first = upstream.calls.first, first.end <= now {
                upstream.calls.removeFirst()
                limit.end(.answered(after: first.end - first.start), at: now)
                if end - now < .seconds(1) {
                    latencies += first.end - first.start
                    servedLastSecond += 1
                }
            }
            while limit.hasRoom {
                limit.start(at: now)
                upstream.send(at: now)
            }
            if end - now < .seconds(1) { lastSecond.append(limit.limit) }
        }
        return (lastSecond.min()!...lastSecond.max()!, servedLastSecond, latencies / max(1, servedLastSecond))
    }

    @Test func underSaturatingDemandItKeepsEveryWorkerBusyWithASmallQueue() {
        var limit = ConcurrencyLimit()
        var upstream = PoolUpstream(workers: 16, service: .milliseconds(20))
        let run = Self.saturate(&limit, &upstream, seconds: 30)
        // 16 workers of 20 ms serve 800 calls a second; the probe's window costs a little.
        #expect(run.perSecond >= 760, "served \(run.perSecond)/s with limits \(run.limits)")
        #expect(run.limits.lowerBound >= 16 && run.limits.upperBound <= 32, "limits \(run.limits)")
        #expect(run.meanLatency <= .milliseconds(40), "mean latency \(run.meanLatency)")
    }

    @Test func aLargerUpstreamIsFoundQuicklyFromTheInitialLimit() {
        var limit = ConcurrencyLimit()
        var upstream = PoolUpstream(workers: 120, service: .milliseconds(20))
        let run = Self.saturate(&limit, &upstream, seconds: 5)
        #expect(run.limits.lowerBound >= 120, "limits \(run.limits)")
        #expect(run.perSecond >= 5_700, "served \(run.perSecond)/s")
    }

    @Test func anUpstreamThatBecameSlowerForGoodIsRelearnt() {
        var limit = ConcurrencyLimit()
        var upstream = PoolUpstream(workers: 16, service: .milliseconds(20))
        _ = Self.saturate(&limit, &upstream, seconds: 10)
        upstream.service = .milliseconds(40)
        let run = Self.saturate(&limit, &upstream, from: .seconds(10), seconds: 60)
        // Still every worker busy: 16 workers of 40 ms serve 400 a second.
        #expect(run.perSecond >= 380, "served \(run.perSecond)/s with limits \(run.limits)")
        #expect(run.limits.lowerBound >= 16, "limits \(run.limits)")
    }

    @Test func itDoesNotGrowWhileTheCallsInFlightStayWellBelowIt() {
        var limit = ConcurrencyLimit()
        var now = Duration.zero
        for _ in 0..<1_000 {
            limit.start(at: now)
            limit.start(at: now)
            now += .milliseconds(10)
            limit.end(.answered(after: .milliseconds(10)), at: now)
            limit.end(.answered(after: .milliseconds(10)), at: now)
        }
        #expect(limit.limit == 20, "two calls at a time say nothing about a limit of 20")
    }

    /// Latencies that rise because the caller's own loop is saturated are its own queue: they
    /// neither shrink the limit nor move the baseline, and a used limit grows by one a window.
    @Test func latenciesMeasuredWhileTheCallerIsSaturatedDoNotShrinkIt() {
        // Each window judged at its 20th call's end.
        var limit = ConcurrencyLimit(policy: .init(initial: 20, window: .milliseconds(100), minimumSamples: 20))
        var now = Duration.zero
        func window(latency: Duration, saturated: Bool) {
            for _ in 0..<20 { limit.start(at: now) }
            now += .milliseconds(100)
            for _ in 0..<20 { limit.end(.answered(after: latency), at: now, callerSaturated: saturated) }
        }
        window(latency: .milliseconds(10), saturated: false)
        #expect(limit.baseline == .milliseconds(10))
        let before = limit.limit
        window(latency: .milliseconds(80), saturated: true)
        #expect(limit.limit == before + 1, "used, and no evidence of the upstream's queue")
        #expect(limit.baseline == .milliseconds(10))
        window(latency: .milliseconds(80), saturated: false)
        #expect(limit.limit < before, "the same latency, not ours: the upstream queues")
    }

    @Test func timeOutsShrinkItDownToTheFloorAndNoFurther() {
        var limit = ConcurrencyLimit(policy: .init(floor: 4, initial: 20))
        var now = Duration.zero
        for _ in 0..<200 {
            for _ in 0..<5 { limit.start(at: now) }
            now += .milliseconds(100)
            for _ in 0..<5 { limit.end(.timedOut, at: now) }
        }
        #expect(limit.limit == 4)
        #expect(!limit.hasRoom || limit.inFlight < 4)
    }

    @Test func callsThatTellNothingNeitherCountNorJudge() {
        var limit = ConcurrencyLimit(policy: .init(initial: 8))
        limit.start(at: .zero)
        #expect(limit.inFlight == 1)
        limit.end(.nothing, at: .seconds(10))
        #expect(limit.inFlight == 0 && limit.limit == 8 && limit.baseline == nil)
    }

    @Test func theBaselineIsTheLeastWindowMeanAndAProbeHalvesTheLimitForAWindow() {
        var limit = ConcurrencyLimit(policy: .init(initial: 20, window: .milliseconds(100), minimumSamples: 1, probeEvery: .seconds(1)))
        var now = Duration.zero
        func window(latency: Duration) {
            limit.start(at: now)
            now += .milliseconds(100)
            limit.end(.answered(after: latency), at: now)
        }
        window(latency: .milliseconds(30))
        #expect(limit.baseline == .milliseconds(30))
        window(latency: .milliseconds(20))
        window(latency: .milliseconds(50))
        #expect(limit.baseline == .milliseconds(20))
        #expect(!limit.probing)
        while !limit.probing { window(latency: .milliseconds(20)) }
        #expect(limit.effectiveLimit == limit.limit / 2)
        window(latency: .milliseconds(20))
        #expect(!limit.probing, "one window only")
    }
}
