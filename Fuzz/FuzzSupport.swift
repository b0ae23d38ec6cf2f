// Shared by the libFuzzer targets in this directory. Each target is compiled together with
// Sources/HTTP1/*.swift into one module (see scripts/fuzz.sh), so internal types such as
// `ChunkedDecoder` are visible and no `import HTTP1` is needed.
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

/// Limits the targets run under: the defaults, and tiny ones so that every limit is reachable
/// by short inputs.
let fuzzLimits: [HTTPLimits] = [
    HTTPLimits(),
    HTTPLimits(maxRequestLineBytes: 40, maxHeaderBytes: 120, maxHeaderCount: 4, maxBodyBytes: 64),
]

/// The most a parser may leave unconsumed when it asks for more data: one incomplete line
/// (request/status line, field line or chunk-size line, each bounded by a limit) plus its CR.
/// More would mean the parser buffers without bound instead of rejecting.
func maxLeftover(_ limits: HTTPLimits) -> Int {
    max(limits.maxRequestLineBytes, limits.maxHeaderBytes, ChunkedDecoder.maxSizeLineBytes) + 2
}

/// What a message stream parsed to, normalised so that different feedings compare equal:
/// the body of each message is joined into one item.
enum TraceItem<Head: Equatable>: Equatable {
    case head(Head)
    case body([UInt8])
    case end(trailers: HTTPHeaders)
}

struct Outcome<Head: Equatable>: Equatable {
    var items: [TraceItem<Head>] = []
    var error: HTTPParseError?
    /// Bytes still unconsumed after the last call (0 after an error: the connection closes).
    var leftover = 0
    /// EOF result (response parser only): nil = not asked, .some(nil) = no response begun.
    var eofEvent: String?
}

/// Collects events of one feeding into an `Outcome`.
struct TraceRecorder<Head: Equatable> {
    var outcome = Outcome<Head>()
    private var openBody: [UInt8]?

    mutating func head(_ head: Head) {
        fuzzCheck(openBody == nil, "head while a message is open")
        outcome.items.append(.head(head))
        openBody = []
    }

    mutating func body(_ bytes: ArraySlice<UInt8>) {
        fuzzCheck(openBody != nil, "body without a head")
        openBody!.append(contentsOf: bytes)
    }

    mutating func end(_ trailers: HTTPHeaders) {
        fuzzCheck(openBody != nil, ".end without a head")
        outcome.items.append(.body(openBody!))
        outcome.items.append(.end(trailers: trailers))
        openBody = nil
    }

    /// After an error, the partial body of the open message is dropped: how much of a
    /// close-delimited body is delivered before `bodyTooLarge` legitimately depends on how
    /// the bytes arrived. The head and the error itself must still agree.
    mutating func fail(_ error: HTTPParseError) {
        outcome.error = error
        openBody = nil
    }

    mutating func finish(leftover: Int) -> Outcome<Head> {
        if let body = openBody { outcome.items.append(.body(body)) }
        openBody = nil
        outcome.leftover = leftover
        return outcome
    }
}

/// Checks one parser result against the feeding contract and returns the payload slice.
func checkStep(
    consumed: Int, inputCount: Int, bodyRange: Range<Int>?, idleEvents: inout Int, isNeedMoreData: Bool
) {
    fuzzCheck(consumed >= 0 && consumed <= inputCount, "consumed \(consumed) of \(inputCount)")
    if let range = bodyRange {
        fuzzCheck(!range.isEmpty, "empty body range \(range)")
        fuzzCheck(range.lowerBound >= 0 && range.upperBound <= consumed,
                  "body range \(range) outside consumed 0..<\(consumed)")
    }
    if isNeedMoreData {
        idleEvents = 0
    } else {
        idleEvents = consumed == 0 ? idleEvents + 1 : 0
        // `.end` may consume nothing (empty body), but never twice in a row plus another.
        fuzzCheck(idleEvents < 3, "no progress: \(idleEvents) events in a row consumed nothing")
    }
}

/// Compares the outcome of every feeding with the whole-input outcome.
func checkSameOutcome<Head>(_ outcomes: [Outcome<Head>], _ input: [UInt8], _ what: String) {
    guard let first = outcomes.first else { return }
    for (index, other) in outcomes.enumerated().dropFirst() where other != first {
        fuzzFail("""
            \(what): feeding #\(index) differs from the whole input
              whole: \(first)
              split: \(other)
              input (\(input.count) bytes): \(String(decoding: input.prefix(400), as: UTF8.self).debugDescription)
            """)
    }
}

/// Runs `body` over the libFuzzer input as a Swift array.
func withFuzzInput(_ data: UnsafePointer<UInt8>, _ size: Int, _ body: ([UInt8]) -> Void) -> CInt {
    body(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

/// The parsers throw only `HTTPParseError`; `Array.withUnsafeBytes` erases the typed throw.
func parseError(_ error: any Error) -> HTTPParseError {
    guard let parseError = error as? HTTPParseError else { fuzzFail("unexpected error type: \(error)") }
    return parseError
}
