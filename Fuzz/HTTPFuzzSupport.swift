// Shared by the HTTP1 libFuzzer targets. Each is compiled together with Sources/HTTP1/*.swift
// into one module (see scripts/fuzz.sh), so internal types such as `ChunkedDecoder` are visible
// and no `import HTTP1` is needed.

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

/// The parsers throw only `HTTPParseError`; `Array.withUnsafeBytes` erases the typed throw.
func parseError(_ error: any Error) -> HTTPParseError {
    guard let parseError = error as? HTTPParseError else { fuzzFail("unexpected error type: \(error)") }
    return parseError
}

/// Accept-Encoding negotiation on a parsed head: weights stay qvalues, gzip is never chosen when
/// it is not on offer, and offering gzip as well never makes an answer less acceptable.
func checkNegotiation(_ headers: HTTPHeaders) {
    let preferences = AcceptEncoding(headers)
    fuzzCheck(preferences.isPresent == headers.contains("Accept-Encoding"), "isPresent disagrees with the headers")
    for weight in [preferences.gzipWeight, preferences.identityWeight, preferences.anyWeight] {
        fuzzCheck(weight.map { (0...1000).contains($0) } ?? true, "weight \(String(describing: weight)) outside 0...1000")
    }
    let withGzip = preferences.choose(gzipAvailable: true)
    let withoutGzip = preferences.choose(gzipAvailable: false)
    fuzzCheck(withoutGzip != .gzip, "gzip chosen when not on offer")
    fuzzCheck(withGzip == .gzip || withGzip == withoutGzip, "offering gzip changed \(withoutGzip) to \(withGzip)")
}
