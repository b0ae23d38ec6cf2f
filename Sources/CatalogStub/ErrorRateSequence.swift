import Synchronization

/// Decides which requests an error rate fails, deterministically: the n-th draw on a route fails
/// when `n·rate + phase` crosses an integer on the way to `(n+1)·rate + phase`. Over any run of
/// draws at one rate the failures are spread evenly and number `⌊count·rate⌋` or one more (0.5
/// alternates; 1.0 always fails; 0.0 never does), and the seed only picks each route's phase.
/// Draws are counted per route, so one route's traffic never shifts another's decisions.
final class ErrorRateSequence: Sendable {
    private let productDraws = Atomic<UInt64>(0)
    private let reviewsDraws = Atomic<UInt64>(0)
    private let suggestedDraws = Atomic<UInt64>(0)
    private let phases: [Double]

    init(seed: UInt64) {
        phases = (0..<3).map { slot in
            var random = SplitMix64(seed: seed, stream: 4, index: UInt64(slot))
            return random.unitInterval()
        }
    }

    /// True when this request on `route` should fail under `rate`. Rates 0 and 1 do not draw.
    func fails(_ route: StubRoute, rate: Double) -> Bool {
        if rate <= 0 { return false }
        if rate >= 1 { return true }
        let slot = Self.slot(route)
        let draw = switch route {
        case .product, .all: productDraws.wrappingAdd(1, ordering: .relaxed).oldValue
        case .reviews: reviewsDraws.wrappingAdd(1, ordering: .relaxed).oldValue
        case .suggested: suggestedDraws.wrappingAdd(1, ordering: .relaxed).oldValue
        }
        return Self.fails(draw: draw, rate: rate, phase: phases[slot])
    }

    /// Starts every route's sequence again from its first draw.
    func restart() {
        productDraws.store(0, ordering: .relaxed)
        reviewsDraws.store(0, ordering: .relaxed)
        suggestedDraws.store(0, ordering: .relaxed)
    }

    static func fails(draw: UInt64, rate: Double, phase: Double) -> Bool {
        let before = (Double(draw) * rate + phase).rounded(.down)
        let after = (Double(draw + 1) * rate + phase).rounded(.down)
        return after > before
    }

    private static func slot(_ route: StubRoute) -> Int {
        switch route {
        case .product, .all: 0
        case .reviews: 1
        case .suggested: 2
        }
    }
}
