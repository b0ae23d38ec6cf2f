// libFuzzer target: ChunkedDecoder, the internal chunked transfer-coding decoder of HTTP1
// (built by scripts/fuzz.sh as /tmp/build-fuzz/chunked-decoder; the HTTP1 sources are compiled
// into the same module, so the internal type is visible).
//
// The input is a chunked body (what follows a head with `Transfer-Encoding: chunked`). Besides
// the feeding invariants of the other targets (offsets, ranges, progress, bounded leftover,
// same outcome for every feeding), every body the decoder accepts is checked against a simple,
// non-incremental reference decoder: same payload, same end offset, decoded size within the
// limit.

struct NoHead: Equatable {}

func decodeChunkedStream(_ pieces: [ArraySlice<UInt8>], limits: HTTPLimits) -> (Outcome<NoHead>, endOffset: Int?) {
    var decoder = ChunkedDecoder(limits: limits, headerBytesUsed: 0, headerFieldCount: 0)
    var recorder = TraceRecorder<NoHead>()
    recorder.head(NoHead())
    var buffer: [UInt8] = []
    var consumedTotal = 0
    for piece in pieces {
        buffer.append(contentsOf: piece)
        var idleEvents = 0
        while true {
            let result: (step: BodyStep, offset: Int)
            do {
                result = try buffer.withUnsafeBytes { raw in try decoder.decode(raw, from: 0) }
            } catch {
                recorder.fail(parseError(error))
                return (recorder.finish(leftover: 0), nil)
            }
            var range: Range<Int>?
            if case .body(let bodyRange) = result.step { range = bodyRange }
            checkStep(consumed: result.offset, inputCount: buffer.count, bodyRange: range,
                      idleEvents: &idleEvents, isNeedMoreData: result.step == .needMoreData)
            switch result.step {
            case .needMoreData:
                break
            case .body(let bodyRange):
                recorder.body(buffer[bodyRange])
            case .end:
                recorder.end(decoder.trailers)
                fuzzCheck(decoder.isComplete, ".end but not complete")
                buffer.removeFirst(result.offset)
                consumedTotal += result.offset
                // The rest (including pieces not yet appended) is the next message.
                let total = pieces.reduce(0) { $0 + $1.count }
                return (recorder.finish(leftover: total - consumedTotal), consumedTotal)
            }
            buffer.removeFirst(result.offset)
            consumedTotal += result.offset
            if result.step == .needMoreData {
                fuzzCheck(buffer.count <= maxLeftover(limits),
                          "needMoreData with \(buffer.count) bytes unconsumed (limit \(maxLeftover(limits)))")
                break
            }
        }
    }
    return (recorder.finish(leftover: buffer.count), nil)
}

/// A deliberately naive chunked decoder: nil unless the input holds a complete chunked body.
/// It checks framing only (hex size prefix, CRLF after data, blank line after trailers), so it
/// accepts a superset of what the strict decoder accepts.
func referenceChunked(_ bytes: [UInt8]) -> (payload: [UInt8], end: Int)? {
    func lineEnd(from start: Int) -> Int? {
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] == 13 && bytes[index + 1] == 10 { return index }
            index += 1
        }
        return nil
    }
    var payload: [UInt8] = []
    var offset = 0
    while true {
        guard let end = lineEnd(from: offset) else { return nil }
        var size = 0
        var digits = 0
        for byte in bytes[offset..<end] {
            guard let digit = ASCII.hexValue(byte) else { break }
            guard size <= bytes.count else { return nil }
            size = size * 16 + digit
            digits += 1
        }
        guard digits > 0 else { return nil }
        offset = end + 2
        if size == 0 {
            while true {
                guard let trailerEnd = lineEnd(from: offset) else { return nil }
                let empty = trailerEnd == offset
                offset = trailerEnd + 2
                if empty { return (payload, offset) }
            }
        }
        guard size <= bytes.count - offset - 2 else { return nil }
        payload.append(contentsOf: bytes[offset..<(offset + size)])
        offset += size
        guard bytes[offset] == 13 && bytes[offset + 1] == 10 else { return nil }
        offset += 2
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func chunkedDecoderFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    withFuzzInput(data, size) { input in
        for limits in fuzzLimits {
            let runs = feedings(of: input).map { decodeChunkedStream($0, limits: limits) }
            checkSameOutcome(runs.map(\.0), input, "chunked decoder, limits \(limits)")
            guard let end = runs[0].endOffset else { continue }
            guard case .body(let payload)? = runs[0].0.items.dropLast().last else {
                fuzzFail("accepted body without a payload item: \(runs[0].0)")
            }
            fuzzCheck(payload.count <= limits.maxBodyBytes, "decoded \(payload.count) > maxBodyBytes")
            guard let reference = referenceChunked(input) else {
                fuzzFail("decoder accepted \(end) bytes the reference decoder rejects")
            }
            fuzzCheck(reference.end == end, "end offset \(end), reference \(reference.end)")
            fuzzCheck(reference.payload == payload, "payload differs from the reference decoder")
        }
    }
}
