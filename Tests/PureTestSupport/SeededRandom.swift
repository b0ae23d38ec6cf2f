/// SplitMix64 (Steele, Lea, Flood 2014): a tiny deterministic generator, so a test that draws at
/// random draws the same on every run and a failing seed replays exactly.
package struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<bound` by remainder: slightly biased, but the same on every run, which is
    /// what a corpus needs.
    package mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}
