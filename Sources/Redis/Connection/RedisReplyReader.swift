import RESP

/// The replies of one connection, split off its reads as they arrive.
///
/// A read's bytes are parsed where libuv put them (``Input``), so a reply's payload is copied
/// once, into its value: the parser gathers a payload that spans reads itself. Only what it
/// leaves of a read, a line cut short (at most `maxLineLength`) or the CR after a payload, waits
/// in the buffer; the next read first completes that line there, with its bytes up to their
/// first line end, then goes on in place.
struct RedisReplyReader: Sendable {
    /// The bytes of one read, lent for the call that received them.
    struct Input {
        fileprivate let bytes: UnsafeRawBufferPointer
        fileprivate var offset = 0

        init(_ bytes: UnsafeRawBufferPointer) {
            self.bytes = bytes
        }

        fileprivate var rest: UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(rebasing: bytes[offset...])
        }
    }

    /// What ``nextReply(from:)`` found.
    enum Read {
        case reply(RESPValue)
        /// The bytes are no valid reply: the connection must end with this error.
        case invalid(RedisClientError)
    }

    /// Capacity the buffer keeps when its consumed bytes are dropped; one grown past
    /// `shrinkAbove` by a long line is given back once drained.
    static let keptCapacity = 4 << 10
    static let shrinkAbove = 2 * keptCapacity

    private var parser: RESPReplyParser
    private var buffer: [UInt8] = []
    private var position = 0

    init(limits: RESPLimits) {
        parser = RESPReplyParser(limits: limits)
    }

    /// The buffer's capacity, so tests can see a large one given back.
    var bufferCapacity: Int {
        buffer.capacity
    }

    /// The bytes waiting for the next read, so tests can see that only a line does.
    var bufferedCount: Int {
        buffer.count - position
    }

    /// The next complete reply from what is buffered and then `input`, or `nil` once `input`
    /// holds no more of one: then ``keepUnread(_:)`` keeps what is left of it. After an error
    /// every call throws it again until `reset()`.
    mutating func next(from input: inout Input) throws(RESPParseError) -> RESPValue? {
        while position < buffer.count {
            guard input.offset < input.bytes.count else { return nil }
            let rest = input.rest
            let taken = rest.firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? rest.count
            buffer.append(contentsOf: rest[..<taken])
            input.offset += taken
            let step = try parser.parse(buffer, from: position)
            position += step.consumed
            switch step.event {
            case .reply(let reply):
                if position == buffer.count { dropConsumed() }
                return reply
            case .needMoreData:
                dropConsumed()
            }
        }
        let step = try parser.parse(input.rest)
        input.offset += step.consumed
        guard case .reply(let reply) = step.event else { return nil }
        return reply
    }

    /// Keeps what the parser left of `input` (at most a line) for the next read.
    mutating func keepUnread(_ input: Input) {
        guard input.offset < input.bytes.count else { return }
        buffer.append(contentsOf: input.rest)
    }

    /// `next(from:)` for a connection machine: the next complete reply, the error the
    /// connection ends with when the bytes are no reply, or `nil` once `input` holds no more.
    mutating func nextReply(from input: inout Input) -> Read? {
        do throws(RESPParseError) {
            return try next(from: &input).map(Read.reply)
        } catch {
            return .invalid(RedisClientError.protocolError.detailed("Redis sent an invalid reply: \(error.detail)"))
        }
    }

    /// Forgets everything, for a new connection.
    mutating func reset() {
        parser.reset()
        position = buffer.count
        dropConsumed()
    }

    private mutating func dropConsumed() {
        if buffer.capacity > Self.shrinkAbove && buffer.count - position <= Self.keptCapacity {
            // `removeFirst` and `removeAll(keepingCapacity:)` keep the storage: copy what is
            // left into a modest buffer and let the large one go.
            var smaller: [UInt8] = []
            smaller.reserveCapacity(Self.keptCapacity)
            smaller.append(contentsOf: buffer[position...])
            buffer = smaller
        } else {
            buffer.removeFirst(position)
        }
        position = 0
    }
}
