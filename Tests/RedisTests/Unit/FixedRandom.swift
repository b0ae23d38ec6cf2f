/// Always the same word: `.max` draws the top of any range. (Not 0: the standard library's
/// unbiased range sampling rejects a constant 0 forever.)
struct FixedRandom: RandomNumberGenerator, Sendable {
    var value: UInt64

    mutating func next() -> UInt64 {
        value
    }
}
