/// Delivers body bytes for whichever framing the head declared, so both parsers
/// share one implementation of Content-Length, chunked and close-delimited bodies.
struct MessageBodyDecoder: Sendable {
    private enum Mode: Sendable {
        case none, fixed, chunked, untilClose
    }

    private var mode = Mode.none
    private var remaining = 0
    private var receivedUntilClose = 0
    private var chunked: ChunkedDecoder?
    private let maxBodyBytes: Int

    init() {
        maxBodyBytes = 0
    }

    init(framing: BodyFraming, limits: HTTPLimits, headerBytesUsed: Int, headerFieldCount: Int) {
        maxBodyBytes = limits.maxBodyBytes
        switch framing {
        case .none:
            mode = .none
        case .contentLength(let length):
            mode = .fixed
            remaining = length
        case .chunked:
            mode = .chunked
            chunked = ChunkedDecoder(limits: limits, headerBytesUsed: headerBytesUsed, headerFieldCount: headerFieldCount)
        case .untilClose:
            mode = .untilClose
        }
    }

    /// Trailers of a chunked body (empty otherwise); complete once `.end` was returned.
    var trailers: HTTPHeaders { chunked?.trailers ?? HTTPHeaders() }

    /// Returns the next step and how many bytes of `input` it consumed.
    mutating func decode(_ input: UnsafeRawBufferPointer) throws(HTTPParseError) -> (BodyStep, Int) {
        switch mode {
        case .none:
            return (.end, 0)
        case .fixed:
            guard remaining > 0 else { return (.end, 0) }
            guard input.count > 0 else { return (.needMoreData, 0) }
            let taken = min(input.count, remaining)
            remaining -= taken
            return (.body(0..<taken), taken)
        case .chunked:
            return try chunked!.decode(input, from: 0)
        case .untilClose:
            guard input.count > 0 else { return (.needMoreData, 0) }
            guard input.count <= maxBodyBytes - receivedUntilClose else { throw .bodyTooLarge }
            receivedUntilClose += input.count
            return (.body(0..<input.count), input.count)
        }
    }

    /// The peer closed the connection: true when that legitimately ends the body.
    func isCompleteAtEOF() -> Bool {
        switch mode {
        case .none: true
        case .fixed: remaining == 0
        case .chunked: chunked?.isComplete ?? false
        case .untilClose: true
        }
    }
}

/// How the end of a message body is found (RFC 9112 §6.3). Deciding this once,
/// at head time, keeps the smuggling-sensitive logic in a single place.
package enum BodyFraming: Hashable, Sendable {
    /// The message has no body.
    case none
    /// Exactly this many body bytes follow the head.
    case contentLength(Int)
    /// The body uses the chunked transfer coding.
    case chunked
    /// The body runs until the peer closes the connection (responses only).
    case untilClose
}

/// What a body decoder produced from one call; the parsers map it onto their
/// public `Event` types.
enum BodyStep: Sendable, Equatable {
    case needMoreData
    /// Payload bytes at this range of the input.
    case body(Range<Int>)
    /// The body (and any trailers) is complete.
    case end
}
