// libFuzzer target: RESPReplyParser (built by scripts/fuzz.sh as /tmp/build-fuzz/resp-reply-parser,
// compiled together with Sources/RESP/*.swift into one module, so no `import RESP` is needed).
//
// The input is a byte stream from a Redis server. It is parsed whole, byte by byte (if short) and
// in random splits derived from its bytes, under default and tiny limits, as a connection does
// (keep what was not consumed, append, parse until `.needMoreData`). Invariants: no crash or
// hang; 0 ≤ consumed ≤ input; a reply always consumes bytes; `.needMoreData` never leaves more
// than one bounded line unconsumed; no reply exceeds the limits; an error is
// thrown again by the next call; and every feeding gives the same replies, error, leftover and
// partial state as the whole input. Then the input, cut into arguments at its NUL bytes, is
// encoded as a command, which must take exactly `encodedCount` bytes and parse back to those
// arguments.

private let limitsUnderTest: [RESPLimits] = [
    RESPLimits(),
    // The reply bound bites before the others multiply out (4 × 4 × 4 values at depth 3).
    RESPLimits(maxBulkLength: 16, maxAggregateCount: 4, maxDepth: 3, maxLineLength: 12, maxReplyBytes: 512),
]

/// What one feeding of a stream parsed to.
private struct StreamOutcome: Equatable {
    /// Renderings rather than values: `RESPValue`'s == says NaN differs from itself, and the
    /// renderings tell distinct replies apart.
    var replies: [String] = []
    var error: RESPParseError?
    /// Bytes unconsumed after the last piece (0 after an error: the connection closes).
    var leftover = 0
    var hasPartialReply = false
}

/// The most `.needMoreData` may leave unconsumed: a type byte, a line and its CR waiting for its
/// LF (a bulk payload is gathered by the parser, which may leave only the CR after it). More
/// would mean buffering without bound.
private func maxLeftover(_ limits: RESPLimits) -> Int {
    limits.maxLineLength + 2
}

private func parseStream(_ pieces: [ArraySlice<UInt8>], limits: RESPLimits) -> StreamOutcome {
    var parser = RESPReplyParser(limits: limits)
    var outcome = StreamOutcome()
    var buffer: [UInt8] = []
    for piece in pieces {
        buffer.append(contentsOf: piece)
        while true {
            let event: RESPReplyParser.Event
            let consumed: Int
            do throws(RESPParseError) {
                (event, consumed) = try parser.parse(buffer)
            } catch {
                checkErrorRepeats(&parser, error, buffer)
                outcome.error = error
                return outcome
            }
            fuzzCheck(consumed >= 0 && consumed <= buffer.count, "consumed \(consumed) of \(buffer.count)")
            buffer.removeFirst(consumed)
            guard case .reply(let reply) = event else {
                fuzzCheck(buffer.count <= maxLeftover(limits),
                          "needMoreData with \(buffer.count) bytes unconsumed (limit \(maxLeftover(limits)))")
                break
            }
            fuzzCheck(consumed > 0, "a reply consumed nothing")
            checkWithinLimits(reply, limits, depth: 0)
            let size = leastReplySize(reply)
            fuzzCheck(size <= limits.maxReplyBytes, "a reply of at least \(size) bytes (limit \(limits.maxReplyBytes))")
            outcome.replies.append(reply.description)
        }
    }
    outcome.leftover = buffer.count
    outcome.hasPartialReply = parser.hasPartialReply
    return outcome
}

private func checkErrorRepeats(_ parser: inout RESPReplyParser, _ first: RESPParseError, _ buffer: [UInt8]) {
    do throws(RESPParseError) {
        let result = try parser.parse(buffer)
        fuzzFail("after \(first) the parser answered \(result)")
    } catch {
        fuzzCheck(error == first, "after \(first) a second call threw \(error)")
    }
}

/// Walks a reply (its depth is bounded by the limit being checked, so recursion is safe).
private func checkWithinLimits(_ value: RESPValue, _ limits: RESPLimits, depth: Int) {
    let children: [RESPValue]
    switch value {
    case .bulkString(let bytes), .bulkError(let bytes):
        fuzzCheck(bytes.count <= limits.maxBulkLength, "bulk of \(bytes.count) bytes")
        return
    case .verbatimString(_, let text):
        fuzzCheck(text.count + 4 <= limits.maxBulkLength, "verbatim text of \(text.count) bytes")
        return
    case .simpleString(let bytes), .simpleError(let bytes):
        fuzzCheck(bytes.count <= limits.maxLineLength, "line of \(bytes.count) bytes")
        return
    case .integer, .null, .boolean, .double, .bigNumber:
        return
    case .array(let elements), .set(let elements), .push(let elements):
        fuzzCheck(elements.count <= limits.maxAggregateCount, "aggregate of \(elements.count) elements")
        children = elements
    case .map(let entries):
        fuzzCheck(entries.count <= limits.maxAggregateCount, "map of \(entries.count) entries")
        children = entries.flatMap { [$0.key, $0.value] }
    }
    fuzzCheck(depth < limits.maxDepth, "aggregate at depth \(depth + 1), limit \(limits.maxDepth)")
    for child in children { checkWithinLimits(child, limits, depth: depth + 1) }
}

/// The least a reply counts against `maxReplyBytes`: each value's charge and its payload, which
/// its wire bytes exceed (recursion is bounded by the depth limit).
private func leastReplySize(_ value: RESPValue) -> Int {
    let own = RESPLimits.bytesPerValue
    switch value {
    case .bulkString(let bytes), .bulkError(let bytes), .simpleString(let bytes), .simpleError(let bytes):
        return own + bytes.count
    case .verbatimString(_, let text):
        return own + 4 + text.count
    case .integer, .null, .boolean, .double, .bigNumber:
        return own
    case .array(let elements), .set(let elements), .push(let elements):
        return elements.reduce(own) { $0 + leastReplySize($1) }
    case .map(let entries):
        return entries.reduce(own) { $0 + leastReplySize($1.key) + leastReplySize($1.value) }
    }
}

/// A command made of the input's NUL-separated pieces and an integer derived from it must
/// encode to `encodedCount` bytes and parse back as the same arguments.
private func checkCommandRoundTrip(_ input: [UInt8]) {
    let pieces = input.split(separator: 0, maxSplits: 64, omittingEmptySubsequences: false).map(Array.init)
    let number = Int64(bitPattern: inputHash(input))
    let command = RESPCommand(arguments: pieces.map { RESPArgument.bytes($0) } + [.integer(number)])
    var buffer: [UInt8] = [0x2B]
    command.encode(into: &buffer)
    fuzzCheck(buffer.count == 1 + command.encodedCount, "encoded \(buffer.count - 1), encodedCount \(command.encodedCount)")
    var parser = RESPReplyParser()
    let expected = RESPValue.array(pieces.map { .bulkString($0) } + [.bulkString(Array(String(number).utf8))])
    do throws(RESPParseError) {
        let result = try parser.parse(buffer, from: 1)
        fuzzCheck(result.consumed == buffer.count - 1, "command parsed in \(result.consumed) of \(buffer.count - 1) bytes")
        fuzzCheck(result.event == .reply(expected), "command parsed to \(result.event), expected \(expected)")
    } catch {
        fuzzFail("an encoded command did not parse: \(error)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func respReplyParserFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    withFuzzInput(data, size) { input in
        for limits in limitsUnderTest {
            let outcomes = feedings(of: input).map { parseStream($0, limits: limits) }
            for (index, outcome) in outcomes.enumerated().dropFirst() where outcome != outcomes[0] {
                fuzzFail("""
                    feeding #\(index) differs from the whole input under \(limits)
                      whole: \(outcomes[0])
                      split: \(outcome)
                    """)
            }
        }
        checkCommandRoundTrip(input)
    }
}
