import RESP

/// The replies of one connection, split off its bytes as they arrive: the parser and the bytes
/// it has not consumed yet. A position moves through the buffer while replies are taken, and
/// the consumed bytes are dropped once the buffer holds no complete reply, so one read of many
/// replies shifts the buffer once.
struct RedisReplyReader: Sendable {
    private var parser: RESPReplyParser
    private var buffer: [UInt8] = []
    private var position = 0

    init(limits: RESPLimits) {
        parser = RESPReplyParser(limits: limits)
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
            buffer.removeFirst(position)
            position = 0
            return nil
        }
        return reply
    }

    /// Forgets everything, for a new connection.
    mutating func reset() {
        parser.reset()
        buffer.removeAll(keepingCapacity: true)
        position = 0
    }
}
