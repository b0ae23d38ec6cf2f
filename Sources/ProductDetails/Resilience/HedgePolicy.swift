/// When a slow call gets a second attempt (docs/architecture.md, "Hedging").
///
/// The hedge delay is the upstream's live p95 over its last successful attempts
/// (``LatencyWindow``), clamped to `minimumDelay…maximumDelay`, once `minimumSamples` successes
/// are known; before that, `maximumDelay`. Hedges draw on their own budget, the retry budget's
/// rule with hedges for retries: about `budget.ratio` extra calls over `budget.window`, and at
/// least `budget.floor` in any window, so the first hedges of a quiet run are not refused. Once
/// the samples are known and `armedFor` has passed since the first call, hedging is armed only
/// while an attempt slower than the delay was seen in the last `armedFor`: racing every call
/// against a timer costs a healthy upstream's loads measurably, for hedges that never go out.
package struct HedgePolicy: Sendable, Equatable {
    package var minimumSamples: Int
    package var minimumDelay: Duration
    package var maximumDelay: Duration
    package var samples: Int
    package var budget: RetryBudgetWindow.Limits
    /// How long one attempt slower than the hedge delay keeps hedging armed.
    package var armedFor: Duration

    package init(
        minimumSamples: Int = 20,
        minimumDelay: Duration = .milliseconds(10),
        maximumDelay: Duration = .milliseconds(200),
        samples: Int = 128,
        budget: RetryBudgetWindow.Limits = .init(window: .seconds(10), bucketCount: 10, ratio: 0.1, floor: 10),
        armedFor: Duration = .seconds(10)
    ) {
        self.minimumSamples = max(1, minimumSamples)
        self.minimumDelay = minimumDelay
        self.maximumDelay = max(minimumDelay, maximumDelay)
        self.samples = max(1, samples)
        self.budget = budget
        self.armedFor = armedFor
    }

    /// The hedge delay given the window's p95: the ceiling while too few samples are known, so a
    /// slow call right after a start is hedged before the window can say what slow is.
    package func delay(p95: Duration?, samples count: Int) -> Duration {
        guard count >= minimumSamples, let p95 else { return maximumDelay }
        return min(max(p95, minimumDelay), maximumDelay)
    }
}
