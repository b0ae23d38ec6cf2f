// libFuzzer target: HTTPRequestParser (built by scripts/fuzz.sh as /tmp/build-fuzz/request-parser).
//
// The input is a byte stream from a client. It is parsed whole, byte by byte (if short) and in
// random splits derived from its bytes, under default and tiny limits, as a connection handler
// does (keep what was not consumed, append, parse until `.needMoreData`). Invariants:
// no crash; 0 ≤ consumed ≤ input; body ranges non-empty and inside the consumed bytes; progress
// (never three events in a row that consume nothing); `.needMoreData` never while more than one
// bounded line is left unconsumed; every feeding yields the same heads, bodies, trailers,
// error and leftover as the whole input; and each head's Accept-Encoding negotiation holds its
// invariants (`checkNegotiation`).

func parseRequestStream(_ pieces: [ArraySlice<UInt8>], limits: HTTPLimits) -> Outcome<HTTPRequestHead> {
    var parser = HTTPRequestParser(limits: limits)
    var recorder = TraceRecorder<HTTPRequestHead>()
    var buffer: [UInt8] = []
    for piece in pieces {
        buffer.append(contentsOf: piece)
        var idleEvents = 0
        while true {
            let result: (event: HTTPRequestParser.Event, consumed: Int)
            do {
                result = try buffer.withUnsafeBytes { raw in try parser.parse(raw) }
            } catch {
                recorder.fail(parseError(error))
                return recorder.finish(leftover: 0)
            }
            var range: Range<Int>?
            if case .body(let bodyRange) = result.event { range = bodyRange }
            checkStep(consumed: result.consumed, inputCount: buffer.count, bodyRange: range,
                      idleEvents: &idleEvents, isNeedMoreData: result.event == .needMoreData)
            switch result.event {
            case .needMoreData:
                break
            case .head(let head):
                checkNegotiation(head.headers)
                recorder.head(head)
            case .body(let bodyRange):
                recorder.body(buffer[bodyRange])
            case .end:
                recorder.end(parser.trailers)
            }
            buffer.removeFirst(result.consumed)
            if result.event == .needMoreData {
                fuzzCheck(buffer.count <= maxLeftover(limits),
                          "needMoreData with \(buffer.count) bytes unconsumed (limit \(maxLeftover(limits)))")
                break
            }
        }
    }
    return recorder.finish(leftover: buffer.count)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func requestParserFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    withFuzzInput(data, size) { input in
        for limits in fuzzLimits {
            let outcomes = feedings(of: input).map { parseRequestStream($0, limits: limits) }
            checkSameOutcome(outcomes, input, "request parser, limits \(limits)")
        }
    }
}
