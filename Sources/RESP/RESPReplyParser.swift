/// An incremental parser of the replies (RESP2 and RESP3) read from one Redis connection.
///
/// Feeding contract, as with the HTTP1 parsers: pass the bytes received and not yet consumed;
/// the parser says how many it consumed, and the next call gets the rest with whatever arrived
/// since appended. Elements of an aggregate are consumed as soon as they are parsed and kept
/// here, so a large reply arriving in pieces is scanned once. A bulk payload is consumed as it
/// arrives, into the array its value will hold (``PendingBulk``), so each of its bytes is copied
/// once and the caller's buffer holds at most one line (`maxLineLength`), or the CR after a
/// payload, unconsumed.
///
/// Nested aggregates live on an explicit stack of frames, never in recursion, and every length,
/// count and depth is checked against `limits` before anything is allocated for it, as is the
/// size of the reply so far (`RESPLimits.maxReplyBytes`) at each header. After an
/// error the stream cannot be split into replies again: every later call throws the same error
/// until `reset()`, for a new connection.
package struct RESPReplyParser: Sendable {
    package enum Event: Sendable, Equatable {
        /// The input ends inside a reply (or is empty): call again when more bytes arrive.
        case needMoreData
        /// A complete reply; more may follow in the unconsumed input.
        case reply(RESPValue)
    }

    /// What reading one element from the input gave.
    private enum ElementStep {
        case value(RESPValue)
        /// Bytes were read that do not finish a value: an aggregate or bulk header, or an
        /// empty attribute.
        case headerRead
        case needMoreData
    }

    package let limits: RESPLimits
    private var frames: [AggregateFrame] = []
    private var pendingBulk: PendingBulk?
    private var lineScanner = ReplyLineScanner()
    private var failure: RESPParseError?
    /// Whether bytes of the next reply were consumed: a header, elements, or an attribute.
    private var replyBegun = false
    /// The size of the reply being parsed so far, as `RESPLimits.maxReplyBytes` counts it;
    /// never above that limit.
    private var replySize = 0

    package init(limits: RESPLimits = RESPLimits()) {
        self.limits = limits
    }

    /// Whether bytes of a reply not yet returned were consumed (a header, elements, or an
    /// attribute). A connection that ends while this is true, or with unconsumed bytes, ended in
    /// the middle of a reply.
    package var hasPartialReply: Bool {
        replyBegun
    }

    /// Parses at most one reply from the start of `input`. Returns `.needMoreData` (having
    /// perhaps consumed the beginning of a reply) or `.reply` with the bytes it took.
    package mutating func parse(
        _ input: UnsafeRawBufferPointer
    ) throws(RESPParseError) -> (event: Event, consumed: Int) {
        if let failure { throw failure }
        do {
            return try parseReply(input)
        } catch {
            failure = error
            throw error
        }
    }

    /// Forgets any partial reply and error, for a new connection.
    package mutating func reset() {
        frames.removeAll()
        pendingBulk = nil
        lineScanner.reset()
        failure = nil
        replyBegun = false
        replySize = 0
    }

    private mutating func parseReply(
        _ input: UnsafeRawBufferPointer
    ) throws(RESPParseError) -> (event: Event, consumed: Int) {
        var offset = 0
        while true {
            switch try readElement(input, at: &offset) {
            case .needMoreData:
                replyBegun = replyBegun || offset > 0
                return (.needMoreData, offset)
            case .headerRead:
                continue
            case .value(let value):
                guard let reply = close(with: value) else { continue }
                replyBegun = false
                replySize = 0
                return (.reply(reply), offset)
            }
        }
    }

    /// Adds a finished value to the innermost open aggregate, closing every aggregate it
    /// completes in turn. Returns the reply once nothing is left open around it.
    private mutating func close(with value: RESPValue) -> RESPValue? {
        var finished = value
        while !frames.isEmpty {
            guard frames[frames.count - 1].append(finished) else { return nil }
            guard let aggregate = frames.removeLast().finish() else {
                // A complete attribute: the value it annotates comes next.
                return nil
            }
            finished = aggregate
        }
        return finished
    }

    private mutating func readElement(
        _ input: UnsafeRawBufferPointer, at offset: inout Int
    ) throws(RESPParseError) -> ElementStep {
        if pendingBulk != nil {
            return try readPayload(input, at: &offset)
        }
        guard offset < input.count else { return .needMoreData }
        guard let type = ReplyType(byte: input[offset]) else { throw .unknownType }
        guard let line = try lineScanner.nextLine(in: input, from: offset, maxLength: limits.maxLineLength) else {
            return .needMoreData
        }
        // Every value, aggregate and attribute has exactly one header line: charging the value
        // here counts each once, before the header allocates anything.
        try addToReplySize(line.upperBound + 2 - offset)
        try addToReplySize(RESPLimits.bytesPerValue)
        offset = line.upperBound + 2
        return try readLine(type, UnsafeRawBufferPointer(rebasing: input[line]))
    }

    /// The pending bulk's payload and CRLF: taken whole when all of it is in `input`, else the
    /// part that is gathered into the value's array.
    private mutating func readPayload(_ input: UnsafeRawBufferPointer, at offset: inout Int) throws(RESPParseError) -> ElementStep {
        // Out of the property while it grows, so that its array is not copied on write.
        var bulk = pendingBulk!
        pendingBulk = nil
        if bulk.missing > 0 {
            // Subtraction rather than `length + 2`, which could overflow under a huge limit.
            if bulk.gathered.isEmpty, input.count - offset - 2 >= bulk.length {
                let payloadEnd = offset + bulk.length
                guard input[payloadEnd] == ASCII.cr, input[payloadEnd + 1] == ASCII.lf else { throw .missingCRLF }
                let value = try bulk.value(from: UnsafeRawBufferPointer(rebasing: input[offset..<payloadEnd]))
                offset = payloadEnd + 2
                return .value(value)
            }
            let piece = min(bulk.missing, input.count - offset)
            if piece > 0 {
                bulk.gather(UnsafeRawBufferPointer(rebasing: input[offset..<(offset + piece)]))
                offset += piece
            }
        }
        guard input.count - offset >= 2 else {
            pendingBulk = bulk
            return .needMoreData
        }
        guard input[offset] == ASCII.cr, input[offset + 1] == ASCII.lf else { throw .missingCRLF }
        offset += 2
        return .value(try bulk.gatheredValue())
    }

    private mutating func addToReplySize(_ bytes: Int) throws(RESPParseError) {
        // The size never exceeds the limit, so the subtraction cannot overflow where a sum could.
        guard bytes <= limits.maxReplyBytes - replySize else { throw .replyTooLarge }
        replySize += bytes
    }

    /// Interprets a complete header line (its content, after the type byte).
    private mutating func readLine(
        _ type: ReplyType, _ text: UnsafeRawBufferPointer
    ) throws(RESPParseError) -> ElementStep {
        switch type {
        case .simpleString: return .value(.simpleString(Self.status(text)))
        case .simpleError: return .value(.simpleError(Array(text)))
        case .integer: return .value(.integer(try DecimalText.integer(text)))
        case .null: return .value(try RESP3ScalarText.null(text))
        case .boolean: return .value(.boolean(try RESP3ScalarText.boolean(text)))
        case .double: return .value(.double(try RESP3ScalarText.double(text)))
        case .bigNumber: return .value(.bigNumber(try RESP3ScalarText.bigNumber(text)))
        case .bulkString: return try openBulk(.string, text)
        case .bulkError: return try openBulk(.error, text)
        case .verbatimString: return try openBulk(.verbatim, text)
        case .array: return try openAggregate(.array, text)
        case .set: return try openAggregate(.set, text)
        case .push: return try openAggregate(.push, text)
        case .map: return try openAggregate(.map, text)
        case .attribute: return try openAggregate(.attribute, text)
        }
    }

    private mutating func openBulk(
        _ kind: PendingBulk.Kind, _ text: UnsafeRawBufferPointer
    ) throws(RESPParseError) -> ElementStep {
        guard let length = try DecimalText.length(
            text, allowsNull: kind == .string, limit: limits.maxBulkLength, tooLarge: .bulkTooLong)
        else { return .value(.null) }
        // The format and its colon: a shorter verbatim string can never become valid.
        if kind == .verbatim && length < 4 { throw .invalidVerbatimString }
        // The payload and its CRLF, before the caller buffers them.
        try addToReplySize(length)
        try addToReplySize(2)
        pendingBulk = PendingBulk(kind: kind, length: length)
        return .headerRead
    }

    private mutating func openAggregate(
        _ kind: AggregateFrame.Kind, _ text: UnsafeRawBufferPointer
    ) throws(RESPParseError) -> ElementStep {
        guard let count = try DecimalText.length(
            text, allowsNull: kind == .array, limit: limits.maxAggregateCount, tooLarge: .aggregateTooLarge)
        else { return .value(.null) }
        // An empty aggregate counts as a level too, so the limit does not depend on contents.
        guard frames.count < limits.maxDepth else { throw .nestingTooDeep }
        guard count > 0 else {
            guard let empty = AggregateFrame.empty(kind) else { return .headerRead }
            return .value(empty)
        }
        frames.append(AggregateFrame(kind: kind, count: count))
        return .headerRead
    }

    /// The bytes of a status reply; the two a pipeline of transactions answers most (`OK` to
    /// `MULTI`, `QUEUED` to each queued command) share one storage instead of an array each.
    private static func status(_ text: UnsafeRawBufferPointer) -> [UInt8] {
        if text.elementsEqual(queued) { return queued }
        if text.elementsEqual(ok) { return ok }
        return Array(text)
    }

    private static let ok = Array("OK".utf8)
    private static let queued = Array("QUEUED".utf8)
}

extension RESPReplyParser {
    /// Parses from `bytes[start...]`, for a caller that keeps its read position in an array
    /// instead of removing consumed bytes. `consumed` counts from `start`.
    package mutating func parse(
        _ bytes: [UInt8], from start: Int = 0
    ) throws(RESPParseError) -> (event: Event, consumed: Int) {
        precondition(start >= 0 && start <= bytes.count, "start \(start) outside 0...\(bytes.count)")
        // `withUnsafeBytes` rethrows untyped errors: carry the typed one out in a Result.
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(RESPParseError) in try parse(UnsafeRawBufferPointer(rebasing: raw[start...])) }
        }
        return try result.get()
    }
}
