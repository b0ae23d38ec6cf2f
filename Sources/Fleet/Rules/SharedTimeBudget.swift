import ProductDetails
/// The shared-cache time one cache miss may spend in all: every command it sends (the look-up
/// with its lease attempt, a claim, each read again while another replica loads) draws on it, so a slow
/// Redis costs a miss at most one budget, however many commands it needed. Pauses between reads
/// are not Redis time and do not draw on it.
struct SharedTimeBudget {
    private(set) var left: Duration

    init(_ total: Duration) {
        left = total
    }

    /// The deadline of a command sent `now`, or `nil` once the budget is spent.
    func deadline(now: Duration) -> Duration? {
        left > .zero ? now + left : nil
    }

    /// Charges a command that took from `start` to `end`.
    mutating func charge(from start: Duration, to end: Duration) {
        left -= max(.zero, end - start)
    }
}
