import RESP

/// The replies of one connection, split off its bytes as they arrive: the parser and the bytes
/// it has not consumed yet. A position moves through the buffer while replies are taken, and
/// the consumed bytes are dropped once the buffer holds no complete reply, so one read of many
/// replies shifts the buffer once.
struct RedisReplyReader: Sendable {
    /// Capacity the buffer keeps when its consumed bytes are dropped. Enough for the replies of
    /// an ordinary read, so those never reallocate; a buffer grown past `shrinkAbove` by a large
    /// reply is given back once drained, instead of staying with the connection for its whole
    /// life.
    static let keptCapacity = 64 << 10
    /// Allocators round a reservation up, and a buffer a little over `keptCapacity` is not
    /// worth a copy: only one beyond twice that is replaced, so a replaced buffer never is again.
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

    mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// The next complete reply, or `nil` until more bytes arrive. After an error every call
    /// throws it again until `reset()`.
    mutating func next() throws(RESPParseError) -> RESPValue? {
        let step = try parser.parse(buffer, from: position)
        position += step.consumed
        guard case .reply(let reply) = step.event else {
            dropConsumed()
            return nil
        }
        return reply
    }

    /// What `nextReply()` found.
    enum Read {
        case reply(RESPValue)
        /// The bytes are no valid reply: the connection must end with this error.
        case invalid(RedisClientError)
    }

    /// `next()` for a connection machine: the next complete reply, the error the connection
    /// ends with when the bytes are no reply, or `nil` until more bytes arrive.
    mutating func nextReply() -> Read? {
        do throws(RESPParseError) {
            return try next().map(Read.reply)
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
        let unconsumed = buffer.count - position
        if buffer.capacity > Self.shrinkAbove && unconsumed <= Self.keptCapacity {
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
