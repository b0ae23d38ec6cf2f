import RESP
import Testing

@testable import Redis

/// The reader parses each read where it lies: a reply's payload goes into its value once, and
/// only a line cut short by the end of a read waits for the next one.
@Suite("Reply reader")
struct ReplyReaderTests {
    private static let largePayload = [UInt8](repeating: 0x61, count: 1 << 20)
    private static let largeReply = wire("$\(largePayload.count)\r\n") + largePayload + wire("\r\n")

    /// Feeds `reads` one after another, as a connection does, and returns every reply.
    private static func replies(_ reads: [[UInt8]], into reader: inout RedisReplyReader) throws -> [RESPValue] {
        var replies: [RESPValue] = []
        for read in reads {
            var failure: RESPParseError?
            read.withUnsafeBytes { bytes in
                var input = RedisReplyReader.Input(bytes)
                do throws(RESPParseError) {
                    while let reply = try reader.next(from: &input) { replies.append(reply) }
                } catch {
                    failure = error
                }
                reader.keepUnread(input)
            }
            if let failure { throw failure }
        }
        return replies
    }

    /// A megabyte reply in 64 KiB reads: its payload is gathered by the parser, and the buffer
    /// holds at most the few bytes a read cut off.
    @Test func aLargeReplyOverManyReadsNeverFillsTheBuffer() throws {
        var reader = RedisReplyReader(limits: RESPLimits())
        let reads = stride(from: 0, to: Self.largeReply.count, by: 64 << 10).map {
            Array(Self.largeReply[$0..<min($0 + (64 << 10), Self.largeReply.count)])
        }
        #expect(try Self.replies(reads, into: &reader) == [.bulkString(Self.largePayload)])
        #expect(reader.bufferedCount == 0)
        #expect(reader.bufferCapacity <= RedisReplyReader.shrinkAbove)
    }

    /// Replies cut at every offset between two reads come out whole and in order; between the
    /// reads the buffer holds no more than the line the cut fell in.
    @Test func repliesCutAtEveryOffsetComeOutWhole() throws {
        let stream = wire("*3\r\n$5\r\nhello\r\n_\r\n:42\r\n+OK\r\n$0\r\n\r\n-ERR no\r\n")
        let expected: [RESPValue] = [
            .array([.bulkString(wire("hello")), .null, .integer(42)]), .simpleString(wire("OK")), .bulkString([]),
            .simpleError(wire("ERR no")),
        ]
        for cut in 0...stream.count {
            var reader = RedisReplyReader(limits: RESPLimits())
            var got = try Self.replies([Array(stream[..<cut])], into: &reader)
            #expect(reader.bufferedCount <= 8, "cut at \(cut)")
            got += try Self.replies([Array(stream[cut...])], into: &reader)
            #expect(got == expected, "cut at \(cut)")
            #expect(reader.bufferedCount == 0, "cut at \(cut)")
        }
    }

    /// Byte by byte, every reply still arrives once and whole.
    @Test func oneByteAReadStillParses() throws {
        var reader = RedisReplyReader(limits: RESPLimits())
        let stream = wire("*2\r\n$3\r\nabc\r\n:7\r\n+PONG\r\n")
        let got = try Self.replies(stream.map { [$0] }, into: &reader)
        #expect(got == [.array([.bulkString(wire("abc")), .integer(7)]), .simpleString(wire("PONG"))])
    }

    /// A long line that grew the buffer gives its storage back once parsed.
    @Test func aLongLinesBufferIsGivenBack() throws {
        var reader = RedisReplyReader(limits: RESPLimits())
        let text = [UInt8](repeating: 0x62, count: 40 << 10)
        let line = wire("+") + text + wire("\r\n")
        let got = try Self.replies([Array(line.prefix(20 << 10)), Array(line.dropFirst(20 << 10)), wire(":1\r\n")], into: &reader)
        #expect(got == [.simpleString(text), .integer(1)])
        #expect(reader.bufferedCount == 0)
        #expect(reader.bufferCapacity <= RedisReplyReader.shrinkAbove)
    }

    @Test func resetForgetsWhatWaits() throws {
        var reader = RedisReplyReader(limits: RESPLimits())
        _ = try Self.replies([wire("*2\r\n:1\r\n:")], into: &reader)
        #expect(reader.bufferedCount == 1)
        reader.reset()
        #expect(reader.bufferedCount == 0)
        #expect(try Self.replies([wire("+OK\r\n")], into: &reader) == [.simpleString(wire("OK"))])
    }
}
