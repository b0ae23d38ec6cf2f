import Timekeeping

/// An adaptive limit on one upstream's calls in flight, learnt from their latencies, so that our
/// calls never queue at the upstream (docs/architecture.md, "Overload").
///
/// The rule is TCP Vegas's, as Netflix's concurrency-limits applies it to requests: an upstream
/// that serves `limit` calls at once with a mean latency `mean`, where it answers in `baseline`
/// when nothing waits, holds about `limit × (mean − baseline) / mean` of them in its queue (less
/// a ``Policy/tolerance`` of the excess, which is the caller's own scheduling). Below
/// `alpha` queued calls the limit grows (by a quarter while nothing queues at all, so a busy start
/// finds the upstream's size in a few windows, else by one), above `beta` it shrinks toward it,
/// in between it holds; a time-out shrinks it by a tenth. It is judged once per window of ended
/// calls (``Policy/window``, or twice the limit's calls if those end sooner), and it grows only
/// when the calls in flight came near it (a lightly used upstream's limit says nothing about its
/// capacity).
///
/// The baseline is the least window mean over the last ``Policy/baselineSpan``, so an upstream
/// that became slower for good is relearnt. A limit held at the upstream's size keeps a small
/// queue there, which would creep into the baseline; so every ``Policy/probeEvery`` one window
/// runs at half the limit, where nothing queues, and its mean refreshes the baseline (Envoy's
/// adaptive concurrency filter measures its minimum latency so too).
///
/// A latency measured while the caller's own loop was saturated (``LocalLoad``) is mostly that
/// loop's queue, not the upstream's: a window of such samples neither shrinks the limit nor
/// moves the baseline, and grows the limit by one when it was used, so a replica whose own CPU
/// is the bottleneck does not shed loads its upstream could take.
///
/// A pure value on the caller's clock: the caller starts and ends calls and reads ``hasRoom``.
package struct ConcurrencyLimit: Sendable, Equatable {
    package struct Policy: Sendable, Equatable {
        /// The limit never goes below this (`UPSTREAM_LIMIT_MIN`).
        package var floor: Int
        /// Nor above this (`UPSTREAM_LIMIT_MAX`).
        package var ceiling: Int
        /// Where it starts, clamped to the floor and the ceiling.
        package var initial: Int
        /// How often the limit is judged, once at least ``minimumSamples`` calls ended (sooner
        /// when twice the limit's calls ended first).
        package var window: Duration
        package var minimumSamples: Int
        /// How far back the baseline latency looks.
        package var baselineSpan: Duration
        /// How often one window runs at half the limit to measure the baseline afresh.
        package var probeEvery: Duration
        /// Latency above the baseline not taken for queueing at the upstream: a few milliseconds
        /// are the caller's own scheduling (a busy or shared core), which on a fast upstream would
        /// read as a long queue.
        package var tolerance: Duration

        package init(
            floor: Int = 4, ceiling: Int = 256, initial: Int = 20, window: Duration = .milliseconds(100), minimumSamples: Int = 5,
            baselineSpan: Duration = .seconds(30), probeEvery: Duration = .seconds(10), tolerance: Duration = .milliseconds(5)
        ) {
            self.floor = max(1, floor)
            self.ceiling = max(self.floor, ceiling)
            self.initial = min(max(initial, self.floor), self.ceiling)
            self.window = window
            self.minimumSamples = max(1, minimumSamples)
            self.baselineSpan = baselineSpan
            self.probeEvery = probeEvery
            self.tolerance = tolerance
        }
    }

    /// What one ended call tells the limit.
    package enum Sample: Sendable, Equatable {
        /// The upstream answered (any status) after this long.
        case answered(after: Duration)
        /// The call timed out: the upstream is past what it can serve.
        case timedOut
        /// Nothing about the upstream's queue: cancelled, refused at once, never sent.
        case nothing
    }

    package let policy: Policy
    /// The limit as learnt; ``effectiveLimit`` is what admission uses.
    package private(set) var limit: Int
    package private(set) var inFlight = 0
    /// Whether the current window runs at half the limit to measure the baseline.
    package private(set) var probing = false

    private var windowStart: Duration?
    private var latencySum: Duration = .zero
    private var answered = 0
    /// Of those, the ones measured while the caller's loop was saturated.
    private var answeredSaturated = 0
    private var timeouts = 0
    private var peakInFlight = 0
    /// Least window means, each over a third of ``Policy/baselineSpan``, newest last.
    private var baselines: [(start: Duration, least: Duration)] = []
    private var nextProbe: Duration?

    package init(policy: Policy = Policy()) {
        self.policy = policy
        limit = policy.initial
    }

    package var effectiveLimit: Int {
        probing ? max(policy.floor, limit / 2) : limit
    }

    package var hasRoom: Bool { inFlight < effectiveLimit }

    /// The least latency the upstream has lately shown with nothing queued (`nil` before the first
    /// window): a call with less time than this left cannot be answered in time.
    package var baseline: Duration? {
        baselines.lazy.map(\.least).min()
    }

    package static func == (lhs: ConcurrencyLimit, rhs: ConcurrencyLimit) -> Bool {
        lhs.policy == rhs.policy && lhs.limit == rhs.limit && lhs.inFlight == rhs.inFlight && lhs.probing == rhs.probing
            && lhs.baseline == rhs.baseline
    }

    /// A call goes out now (the caller checked ``hasRoom``, or holds a slot it was admitted with).
    package mutating func start(at now: Duration) {
        if windowStart == nil { windowStart = now }
        inFlight += 1
        peakInFlight = max(peakInFlight, inFlight)
    }

    /// A call started with ``start(at:)`` ended at `now`; judges the window when it is full.
    /// `callerSaturated`: its latency was measured while the caller's own loop was saturated.
    package mutating func end(_ sample: Sample, at now: Duration, callerSaturated: Bool = false) {
        inFlight = max(0, inFlight - 1)
        switch sample {
        case .answered(let latency):
            // A probe measures calls sent at half the limit, not those queued before it began.
            if probing, let windowStart, now - latency < windowStart { break }
            latencySum += latency
            answered += 1
            if callerSaturated { answeredSaturated += 1 }
        case .timedOut:
            timeouts += 1
        case .nothing:
            return
        }
        // A window is judged after its time, or sooner once twice the limit's calls ended (about
        // two round trips), so a fast upstream's limit moves as fast as its answers come.
        let ended = answered + timeouts
        guard let windowStart, ended >= policy.minimumSamples, now - windowStart >= policy.window || ended >= 2 * limit else { return }
        judgeWindow(at: now)
    }

    private mutating func judgeWindow(at now: Duration) {
        defer {
            windowStart = now
            latencySum = .zero
            answered = 0
            answeredSaturated = 0
            timeouts = 0
            peakInFlight = inFlight
        }
        let wasProbing = probing
        probing = false
        if nextProbe == nil { nextProbe = now + policy.probeEvery }
        if let probeAt = nextProbe, now >= probeAt {
            probing = true
            nextProbe = now + policy.probeEvery
        }
        if timeouts > 0 {
            limit = max(policy.floor, min(limit - 1, limit * 9 / 10))
            return
        }
        guard answered > 0 else { return }
        if answeredSaturated * 2 > answered {
            // Our own queue: no evidence about the upstream's.
            if !wasProbing, peakInFlight * 4 >= limit * 3 { limit = min(policy.ceiling, limit + 1) }
            return
        }
        let mean = latencySum / answered
        noteBaseline(mean, at: now)
        // A probe's window ran at half the limit: it measured the baseline, not the limit.
        guard !wasProbing, let baseline, mean > .zero else { return }
        let used = min(limit, peakInFlight)
        let queued = Double(used) * max(0, (mean - baseline - policy.tolerance).fractionalSeconds) / mean.fractionalSeconds
        let scale = max(1, Self.roughLog10(Double(limit)))
        let alpha = 3 * scale
        let beta = 6 * scale
        if queued > beta {
            limit = max(policy.floor, limit - max(1, Int((queued - beta) / 2)))
        } else if queued < alpha, peakInFlight * 4 >= limit * 3 {
            let grown = queued < 1 ? max(limit + 1, limit + limit / 4) : limit + 1
            limit = min(policy.ceiling, grown)
        }
    }

    private mutating func noteBaseline(_ mean: Duration, at now: Duration) {
        let span = policy.baselineSpan / 3
        if let last = baselines.last, now - last.start < span {
            baselines[baselines.count - 1].least = min(last.least, mean)
        } else {
            baselines.append((now, mean))
        }
        baselines.removeAll { now - $0.start >= policy.baselineSpan }
    }

    /// log10 to within a tenth, linear between powers of ten: enough to scale the thresholds, as
    /// Netflix's Vegas does, without the C library's maths.
    private static func roughLog10(_ value: Double) -> Double {
        var digits = 0.0
        var rest = value
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        return digits + (rest - 1) / 9
    }
}
