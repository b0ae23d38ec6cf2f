// libFuzzer target: HTTPResponseParser (built by scripts/fuzz.sh as /tmp/build-fuzz/response-parser).
//
// The input is a byte stream from an upstream server. Same feedings and invariants as the
// request target, under two request-method schedules: GET for every response followed by
// EOF (`finishAtEOF`, which must agree across feedings too), and HEAD, GET, CONNECT, POST in
// turn with the connection left open.

private let methodSchedules: [(methods: [HTTPMethod], closeAtEnd: Bool)] = [
    ([.get], true),
    ([.head, .get, .connect, .post], false),
]

func parseResponseStream(
    _ pieces: [ArraySlice<UInt8>], limits: HTTPLimits, methods: [HTTPMethod], closeAtEnd: Bool
) -> Outcome<HTTPResponseHead> {
    var parser = HTTPResponseParser(limits: limits)
    var recorder = TraceRecorder<HTTPResponseHead>()
    var buffer: [UInt8] = []
    var responses = 0
    for piece in pieces {
        buffer.append(contentsOf: piece)
        var idleEvents = 0
        while true {
            let method = methods[responses % methods.count]
            let result: (event: HTTPResponseParser.Event, consumed: Int)
            do {
                result = try buffer.withUnsafeBytes { raw in
                    try parser.parse(raw, requestMethod: method)
                }
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
                recorder.head(head)
            case .body(let bodyRange):
                recorder.body(buffer[bodyRange])
            case .end:
                recorder.end(parser.trailers)
                responses += 1
            }
            buffer.removeFirst(result.consumed)
            if result.event == .needMoreData {
                fuzzCheck(buffer.count <= maxLeftover(limits),
                          "needMoreData with \(buffer.count) bytes unconsumed (limit \(maxLeftover(limits)))")
                break
            }
        }
    }
    let leftover = buffer.count
    guard closeAtEnd else { return recorder.finish(leftover: leftover) }
    do {
        let event = try parser.finishAtEOF()
        if event == .end { recorder.end(parser.trailers) }
        fuzzCheck(event == nil || event == .end, "finishAtEOF returned \(String(describing: event))")
        var outcome = recorder.finish(leftover: leftover)
        outcome.eofEvent = "\(String(describing: event))"
        return outcome
    } catch {
        recorder.fail(parseError(error))
        var outcome = recorder.finish(leftover: leftover)
        outcome.eofEvent = "threw"
        return outcome
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func responseParserFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    withFuzzInput(data, size) { input in
        for limits in fuzzLimits {
            for schedule in methodSchedules {
                let outcomes = feedings(of: input).map {
                    parseResponseStream($0, limits: limits, methods: schedule.methods, closeAtEnd: schedule.closeAtEnd)
                }
                checkSameOutcome(outcomes, input, "response parser, limits \(limits), methods \(schedule.methods)")
            }
        }
    }
}
