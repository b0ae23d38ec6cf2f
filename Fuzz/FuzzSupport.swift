// Shared by every libFuzzer target in this directory, whatever module it is compiled with (see
// scripts/fuzz.sh): invariant checks, deterministic splits of an input, and the entry helper.
// Helpers for one protocol live beside it (HTTPFuzzSupport.swift).
//
// A violated invariant calls `fuzzFail`, which prints what went wrong and traps: libFuzzer
// records that as a crash and writes the input to the artifacts directory.

/// Reports a broken invariant and stops the process (libFuzzer saves the input).
func fuzzFail(_ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    // fatalError writes to stderr unbuffered; print's stdout buffer would be lost.
    fatalError("FUZZ INVARIANT VIOLATED (\(file):\(line)): \(message())")
}

func fuzzCheck(
    _ condition: Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    if !condition { fuzzFail(message(), file: file, line: line) }
}

/// Deterministic PRNG, so a saved input replays exactly.
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func next(below bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}

/// FNV-1a over the input: split points derive from the bytes themselves.
func inputHash(_ bytes: [UInt8]) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
    return hash
}

/// The ways an input is fed: whole, byte by byte (small inputs only: the driver re-copies
/// the unconsumed buffer, so this is quadratic), and a few random splits into 2…9 pieces.
func feedings(of bytes: [UInt8]) -> [[ArraySlice<UInt8>]] {
    var result: [[ArraySlice<UInt8>]] = [[bytes[...]]]
    guard bytes.count > 1 else { return result }
    if bytes.count <= 256 {
        result.append(bytes.indices.map { bytes[$0...$0] })
    }
    var random = SplitMix64(state: inputHash(bytes))
    for _ in 0..<3 {
        let cutCount = 1 + random.next(below: min(8, bytes.count - 1))
        var cuts = Set<Int>()
        for _ in 0..<cutCount { cuts.insert(1 + random.next(below: bytes.count - 1)) }
        var pieces: [ArraySlice<UInt8>] = []
        var start = 0
        for cut in cuts.sorted() {
            pieces.append(bytes[start..<cut])
            start = cut
        }
        pieces.append(bytes[start...])
        result.append(pieces)
    }
    return result
}

/// Runs `body` over the libFuzzer input as a Swift array.
func withFuzzInput(_ data: UnsafePointer<UInt8>, _ size: Int, _ body: ([UInt8]) -> Void) -> CInt {
    body(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
