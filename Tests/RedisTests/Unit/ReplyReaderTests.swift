import RESP
import Testing

@testable import Redis

/// The reader's buffer: a large reply's storage is given back once drained, a modest one kept.
@Suite("Reply reader: buffer capacity")
struct ReplyReaderTests {
    private static let largePayload = [UInt8](repeating: 0x61, count: 1 << 20)
    private static let largeReply = wire("$\(largePayload.count)\r\n") + largePayload + wire("\r\n")

    @Test func aLargeReplysBufferIsGivenBackOnceDrained() throws {
        var reader = RedisReplyReader(limits: RESPLimits())
        reader.append(Self.largeReply)
        #expect(reader.bufferCapacity >= Self.largeReply.count)
        #expect(try reader.next() == .bulkString(Self.largePayload))
        #expect(try reader.next() == nil)
        #expect(reader.bufferCapacity <= RedisReplyReader.shrinkAbove)
        // The modest buffer stays from then on.
        let capacity = reader.bufferCapacity
        reader.append(wire("+OK\r\n"))
        #expect(try reader.next() == .simpleString(wire("OK")))
        #expect(try reader.next() == nil)
        #expect(reader.bufferCapacity == capacity)
    }

    /// Bytes of the next reply that arrived with the large one survive the copy.
    @Test func bytesAfterALargeReplySurviveTheShrink() throws {
        var reader = RedisReplyReader(limits: RESPLimits())
        reader.append(Self.largeReply + wire("*2\r\n:1"))
        #expect(try reader.next() == .bulkString(Self.largePayload))
        #expect(try reader.next() == nil)
        #expect(reader.bufferCapacity <= RedisReplyReader.shrinkAbove)
        reader.append(wire("\r\n:2\r\n"))
        #expect(try reader.next() == .array([.integer(1), .integer(2)]))
        #expect(try reader.next() == nil)
    }

    /// While a large reply is still arriving its bytes are kept, whatever the capacity.
    @Test func aLargeReplyStillArrivingKeepsItsBytes() throws {
        var reader = RedisReplyReader(limits: RESPLimits())
        reader.append(Self.largeReply.dropLast(1))
        #expect(try reader.next() == nil)
        #expect(reader.bufferCapacity >= Self.largeReply.count - 1)
        reader.append(Self.largeReply.suffix(1))
        #expect(try reader.next() == .bulkString(Self.largePayload))
    }

    @Test func ordinaryRepliesKeepTheirBuffer() throws {
        var reader = RedisReplyReader(limits: RESPLimits())
        let replies = Array(repeating: wire("+OK\r\n"), count: 1000).flatMap { $0 }
        reader.append(replies)
        let capacity = reader.bufferCapacity
        while try reader.next() != nil {}
        #expect(reader.bufferCapacity == capacity)
        reader.append(replies)
        #expect(reader.bufferCapacity == capacity)
    }

    @Test func resetGivesBackALargeBuffer() throws {
        var reader = RedisReplyReader(limits: RESPLimits())
        reader.append(Self.largeReply.dropLast(1))
        #expect(try reader.next() == nil)
        reader.reset()
        #expect(reader.bufferCapacity <= RedisReplyReader.shrinkAbove)
        reader.append(wire("+OK\r\n"))
        #expect(try reader.next() == .simpleString(wire("OK")))
    }
}
