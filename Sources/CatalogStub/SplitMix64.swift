/// SplitMix64 (Steele, Lea, Flood 2014): a tiny, fast generator whose output depends only on its
/// seed, so the catalog is the same on every run and machine. `SystemRandomNumberGenerator` would
/// make every run different; Swift's hashing is seeded per process.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    /// A generator for one purpose (`stream`) of one item (`index`) under a catalog seed: streams
    /// are independent, so adding a field to one never shifts the values of another.
    init(seed: UInt64, stream: UInt64, index: UInt64) {
        var mixer = SplitMix64(seed: seed ^ (stream &* 0xD6E8_FEB8_6659_FD93))
        let base = mixer.next()
        state = base ^ Self.mix(index &+ 0x9E37_79B9_7F4A_7C15)
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// The SplitMix64 finaliser: a bijective scramble of 64 bits.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `range`, by rejection-free multiply-shift (the bias is below 2⁻³² for the small
    /// ranges used here, and it is deterministic, which is what matters).
    mutating func int(in range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound) + 1
        let scaled = next().multipliedFullWidth(by: span).high
        return range.lowerBound + Int(scaled)
    }

    /// A value in [0, 1) with 53 bits of precision.
    mutating func unitInterval() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    mutating func pick<T>(_ items: [T]) -> T {
        items[int(in: 0...(items.count - 1))]
    }
}
