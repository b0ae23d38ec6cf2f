import RESP
import Testing
import TestSupport

/// The encoder and the parser against a real `redis-server` (started by the test on a free
/// loopback port): what we write is what Redis reads, and what Redis writes, RESP2 and RESP3,
/// is what we parse, however the bytes arrive.
@Suite("RESP against a real Redis", .timeLimit(.minutes(1)))
struct RESPLiveRedisTests {
    /// One connection that sends pipelined commands and reads their replies in order.
    final class Connection: Sendable {
        let client: RawClient
        init(_ server: RedisServer) throws { client = try RawClient(port: server.port, readTimeoutSeconds: 10) }

        func send(_ commands: [RESPCommand]) async throws {
            var buffer: [UInt8] = []
            for command in commands { command.encode(into: &buffer) }
            try await client.send(buffer)
        }

        /// Reads until `count` replies are parsed; fails on a stray byte left after them.
        func replies(_ count: Int) async throws -> [RESPValue] {
            var parser = RESPReplyParser()
            var input: [UInt8] = []
            var replies: [RESPValue] = []
            while replies.count < count {
                let bytes = try await client.receiveSome()
                if bytes.isEmpty { throw RawClientError.closed }
                input += bytes
                var consumed = 0
                while replies.count < count {
                    let (event, used) = try input[consumed...].withUnsafeBytes { try parser.parse($0) }
                    consumed += used
                    guard case .reply(let value) = event else { break }
                    replies.append(value)
                }
                input.removeFirst(consumed)
            }
            #expect(input.isEmpty)
            return replies
        }

        func call(_ command: RESPCommand) async throws -> RESPValue {
            try await send([command])
            return try await replies(1)[0]
        }
    }

    @Test func everyRESP2ReplyTypeRoundTripsThroughAPipeline() async throws {
        let server = try RedisServer()
        let redis = try Connection(server)
        defer { redis.client.close() }
        let binary: [UInt8] = [0, 13, 10, 255, 36, 42, 13, 10] + Array(repeating: 0x78, count: 70_000)
        try await redis.send([
            RESPCommand("PING"),
            RESPCommand("SET", "key", .bytes(binary)),
            RESPCommand("GET", "key"),
            RESPCommand("GET", "absent"),
            RESPCommand("INCRBY", "counter", 41),
            RESPCommand("RPUSH", "list", "a", "b", .bytes([])),
            RESPCommand("LRANGE", "list", 0, -1),
            RESPCommand("NOSUCHCOMMAND"),
            RESPCommand("EVAL", "return {1, {2, 'x'}, redis.call('GET', KEYS[1]) == false}", 1, "absent"),
        ])
        let replies = try await redis.replies(9)
        #expect(replies[0] == .simpleString(Array("PONG".utf8)))
        #expect(replies[1] == .simpleString(Array("OK".utf8)))
        #expect(replies[2].bulkBytes == binary, "binary-safe both ways, and a bulk longer than one read")
        #expect(replies[3].isNull)
        #expect(replies[4].integer == 41)
        #expect(replies[5].integer == 3)
        #expect(replies[6].elements?.map(\.bulkBytes) == [Array("a".utf8), Array("b".utf8), []])
        #expect(replies[7].errorCode == "ERR")
        // Lua's false becomes a null bulk in RESP2; nested tables are nested arrays.
        #expect(replies[8] == .array([.integer(1), .array([.integer(2), .bulkString(Array("x".utf8))]), .integer(1)]))
    }

    @Test func resp3RepliesAfterHello() async throws {
        let server = try RedisServer()
        let redis = try Connection(server)
        defer { redis.client.close() }
        let hello = try await redis.call(RESPCommand("HELLO", 3))
        let entries = try #require(hello.mapEntries)
        #expect(entries.contains { $0.key.string == "proto" && $0.value.integer == 3 })
        try await redis.send([
            RESPCommand("HSET", "hash", "f", "v"),
            RESPCommand("HGETALL", "hash"),
            RESPCommand("SADD", "set", "m"),
            RESPCommand("SMEMBERS", "set"),
            RESPCommand("GET", "absent"),
            RESPCommand("EVAL", "return redis.setresp(3) or {double=1.5}", 0),
            RESPCommand("EVAL", "redis.setresp(3); return true", 0),
        ])
        let replies = try await redis.replies(7)
        #expect(replies[1] == .map([RESPMapEntry(key: .bulkString(Array("f".utf8)), value: .bulkString(Array("v".utf8)))]))
        #expect(replies[3] == .set([.bulkString(Array("m".utf8))]))
        #expect(replies[4] == .null)
        #expect(replies[5].double == 1.5)
        #expect(replies[6].boolean == true)
    }

    @Test func aPasswordAndADatabaseFromTheServersPointOfView() async throws {
        let server = try RedisServer(password: "s3cret")
        let redis = try Connection(server)
        defer { redis.client.close() }
        #expect(try await redis.call(RESPCommand("GET", "k")).errorCode == "NOAUTH")
        #expect(try await redis.call(RESPCommand("AUTH", "wrong")).errorCode == "WRONGPASS")
        #expect(try await redis.call(RESPCommand("AUTH", "s3cret")).string == "OK")
        #expect(try await redis.call(RESPCommand("SELECT", 15)).string == "OK")
        #expect(try await redis.call(RESPCommand("SELECT", 16)).errorCode == "ERR")
    }
}
