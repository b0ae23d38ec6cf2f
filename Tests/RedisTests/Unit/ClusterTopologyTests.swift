import RESP
import Testing
@testable import Redis

/// Issue 31's pure parts: hash slots, redirects and the slot map, on plain values.
@Suite("Cluster topology, pure")
struct ClusterTopologyTests {
    /// Each pair checked against `CLUSTER KEYSLOT` of redis-server 7.0.
    @Test(arguments: [
        ("123456789", 12739), ("foo", 12182), ("bar", 5061), ("hello", 866), ("somekey", 11058),
        ("foo{hash_tag}", 2515), ("{user1000}.following", 3443), ("foo{}{bar}", 8363), ("foo{{bar}}zap", 4015),
        ("foo{bar}{zap}", 5061), ("pd:v6:{p1}:page", 11819), ("p1", 11819),
    ])
    func slotsMatchRedis(key: String, slot: Int) {
        #expect(RedisHashSlot.of(key) == slot)
    }

    @Test func theCRCIsXModem() {
        #expect(RedisHashSlot.crc16(Array("123456789".utf8)) == 0x31C3)
        #expect(RedisHashSlot.crc16([]) == 0)
    }

    @Test func redirectsAreRead() {
        #expect(RedisRedirect(errorMessage: "MOVED 3999 127.0.0.1:6381") == .moved(slot: 3999, to: RedisNodeAddress(host: "127.0.0.1", port: 6381)))
        #expect(RedisRedirect(errorMessage: "ASK 0 10.0.0.7:7000") == .ask(slot: 0, to: RedisNodeAddress(host: "10.0.0.7", port: 7000)))
        #expect(RedisRedirect(errorMessage: "MOVED 16383 ::1:7002") == .moved(slot: 16383, to: RedisNodeAddress(host: "::1", port: 7002)))
        #expect(RedisRedirect(errorMessage: "MOVED 12 :7002") == .moved(slot: 12, to: RedisNodeAddress(host: nil, port: 7002)))
        #expect(RedisRedirect(errorMessage: "TRYAGAIN Multiple keys request during rehashing of slot") == .tryAgain)
        #expect(RedisRedirect(errorMessage: "CLUSTERDOWN The cluster is down") == .clusterDown)
    }

    @Test(arguments: [
        "", "MOVED", "MOVED 3999", "MOVED x 127.0.0.1:6381", "MOVED 16384 127.0.0.1:6381", "MOVED -1 127.0.0.1:6381",
        "MOVED 1 127.0.0.1", "MOVED 1 127.0.0.1:0", "MOVED 1 127.0.0.1:65536", "MOVED 1 127.0.0.1:x", "MOVED 1 h:1 extra",
        "ASK 1", "ERR unknown command", "NOSCRIPT No matching script", "moved 1 h:1",
    ])
    func anythingElseIsNotARedirect(message: String) {
        #expect(RedisRedirect(errorMessage: message) == nil)
    }

    /// The bytes a one-node cluster of redis-server 7.0 answered (RESP2), its host left empty.
    @Test func aRealReplyIsReadWithTheEmptyHostMeaningTheNodeAsked() throws {
        let bytes = Array("*1\r\n*3\r\n:0\r\n:16383\r\n*4\r\n$0\r\n\r\n:7391\r\n$40\r\n1d98ca84601a25e6c4c966e1d94afc9ca510c8b5\r\n*0\r\n".utf8)
        var parser = RESPReplyParser()
        guard case .reply(let reply) = try bytes.withUnsafeBytes({ try parser.parse($0) }).event else {
            Issue.record("the reply did not parse")
            return
        }
        let asked = RedisNodeAddress(host: "127.0.0.1", port: 7391)
        let map = try RedisSlotMap(clusterSlots: reply, asked: asked)
        #expect(map.masters == [asked])
        #expect(map.master(forSlot: 0) == asked && map.master(forSlot: 16383) == asked)
        #expect(map.uncoveredSlots == 0)
    }

    private static func node(_ host: String, _ port: Int64) -> RESPValue {
        .array([.bulkString(Array(host.utf8)), .integer(port), .bulkString(Array("id".utf8))])
    }

    private static func range(_ start: Int64, _ end: Int64, _ nodes: RESPValue...) -> RESPValue {
        .array([.integer(start), .integer(end)] + nodes)
    }

    @Test func threeMastersWithReplicasAndAGap() throws {
        let reply = RESPValue.array([
            Self.range(0, 5460, Self.node("10.0.0.1", 7000), Self.node("10.0.0.4", 7003)),
            Self.range(5461, 10922, Self.node("10.0.0.2", 7001), Self.node("10.0.0.5", 7004)),
            Self.range(10923, 16000, Self.node("10.0.0.3", 7002)),
            Self.range(16100, 16383, Self.node("10.0.0.1", 7000)),
        ])
        var map = try RedisSlotMap(clusterSlots: reply, asked: RedisNodeAddress(host: "10.0.0.9", port: 7000))
        #expect(map.masters.map(\.port) == [7000, 7001, 7002])
        #expect(map.replicas.map { $0.map(\.port) } == [[7003], [7004], []])
        #expect(map.master(forSlot: RedisHashSlot.of("foo"))?.port == 7002)
        #expect(map.master(forSlot: 16050) == nil)
        #expect(map.uncoveredSlots == 99)
        map.move(slot: 16050, to: RedisNodeAddress(host: "10.0.0.6", port: 7005))
        #expect(map.master(forSlot: 16050)?.port == 7005)
        #expect(map.uncoveredSlots == 98)
    }

    @Test(arguments: [
        RESPValue.integer(1),
        .array([.array([.integer(0)])]),
        .array([.array([.integer(5), .integer(4), node("h", 1)])]),
        .array([.array([.integer(0), .integer(16384), node("h", 1)])]),
        .array([.array([.integer(-1), .integer(3), node("h", 1)])]),
        .array([.array([.integer(0), .integer(3), .bulkString(Array("h".utf8))])]),
        .array([.array([.integer(0), .integer(3), .array([.bulkString(Array("h".utf8)), .integer(0)])])]),
        .array([.array([.integer(0), .integer(3), node("h", 1), .integer(2)])]),
        .array([range(0, 10, node("a", 1)), range(10, 20, node("b", 2))]),
    ])
    func everyOtherShapeIsRefused(reply: RESPValue) {
        #expect(throws: RedisSlotMapError.self) { try RedisSlotMap(clusterSlots: reply, asked: RedisNodeAddress(host: "h", port: 1)) }
    }
}
