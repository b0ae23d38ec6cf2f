import RESP
import Testing
@testable import Redis

/// When the client reads a cluster's map again and where it sends each slot meanwhile.
@Suite("Cluster topology refreshes")
struct ClusterTopologyRefreshTests {
    let seed = RedisNodeAddress(host: "seed", port: 7000)
    let a = RedisNodeAddress(host: "a", port: 7001)
    let b = RedisNodeAddress(host: "b", port: 7002)

    /// Two masters: slots 0-8191 on `a` (replica `b`... not here), 8192-16383 on `b`.
    func map(_ first: RedisNodeAddress, _ second: RedisNodeAddress, replica: RedisNodeAddress? = nil) throws -> RedisSlotMap {
        try RedisSlotMap(clusterSlots: .array([
            .array([.integer(0), .integer(8191), node(first)] + (replica.map { [node($0)] } ?? [])),
            .array([.integer(8192), .integer(16383), node(second)]),
        ]), asked: seed)
    }

    func node(_ address: RedisNodeAddress) -> RESPValue {
        .array([.bulkString(Array((address.host ?? "").utf8)), .integer(Int64(address.port)), .bulkString(wire("id"))])
    }

    @Test func untilTheMapIsKnownEverythingGoesToTheSeed() {
        var topology = RedisClusterTopology(seed: seed)
        #expect(topology.mode == .unknown)
        #expect(topology.node(forSlot: 5) == seed)
        #expect(topology.refreshToStart(now: .zero) == [seed], "the first request asks at once")
        #expect(topology.refreshToStart(now: .seconds(1)) == nil, "one refresh at a time")
    }

    @Test func aMapSendsEachSlotToItsMasterAndIsAskedAgainPeriodically() throws {
        var topology = RedisClusterTopology(seed: seed, refreshInterval: .seconds(10))
        _ = topology.refreshToStart(now: .zero)
        let change = topology.refreshed(try map(a, b), now: ms(5))
        #expect(change == RedisTopologyChange(masters: [a, b], uncoveredSlots: 0))
        #expect(topology.node(forSlot: 100) == a && topology.node(forSlot: 9000) == b)
        #expect(topology.node(forSlot: nil) == a)
        #expect(topology.refreshToStart(now: .seconds(9)) == nil)
        #expect(topology.refreshToStart(now: .seconds(11)) == [a, b, seed], "masters first, the seed last")
        #expect(topology.refreshed(try map(a, b), now: .seconds(11)) == nil, "the same map is no change")
    }

    @Test func movedFixesTheSlotAtOnceAndAsksForARefreshNoSoonerThanTheGap() throws {
        var topology = RedisClusterTopology(seed: seed, refreshInterval: .seconds(10), minimumGap: ms(100))
        _ = topology.refreshToStart(now: .zero)
        topology.refreshed(try map(a, b), now: ms(1))
        topology.redirected(.moved(slot: 100, to: b))
        #expect(topology.node(forSlot: 100) == b && topology.node(forSlot: 101) == a)
        #expect(topology.refreshToStart(now: ms(50)) == nil, "within the gap since the last ask")
        #expect(topology.refreshToStart(now: ms(100)) != nil)
        topology.redirected(.ask(slot: 200, to: b))
        #expect(topology.node(forSlot: 200) == a, "ASK moves nothing")
    }

    @Test func anUnreachableNodeAsksForARefreshAndAFailedOneIsTriedAgain() throws {
        var topology = RedisClusterTopology(seed: seed, refreshInterval: .seconds(10), minimumGap: ms(100))
        _ = topology.refreshToStart(now: .zero)
        topology.refreshed(try map(a, b), now: ms(1))
        topology.unreachable(a)
        #expect(topology.refreshToStart(now: ms(200)) == [a, b, seed])
        topology.refreshFailed(now: ms(250))
        #expect(topology.refreshToStart(now: ms(300)) == [a, b, seed])
    }

    /// The connections gauge's labels: what each node is in the map as last read.
    @Test func connectionsAreCountedByTheirNodesRoleInTheLastMap() throws {
        var topology = RedisClusterTopology(seed: seed)
        #expect(topology.countByRole([seed, seed]) == [.master: 0, .replica: 0, .unmapped: 2], "no map read yet")
        _ = topology.refreshToStart(now: .zero)
        let replica = RedisNodeAddress(host: "r", port: 7003)
        topology.refreshed(try map(a, b, replica: replica), now: ms(1))
        #expect(topology.countByRole([a, a, b, replica, seed]) == [.master: 3, .replica: 1, .unmapped: 1])
        #expect(topology.countByRole([]) == [.master: 0, .replica: 0, .unmapped: 0])
        // A failover: the seed serves what `a` served, and `a`, gone, is in no map.
        topology.refreshed(try map(seed, b), now: ms(2))
        #expect(topology.countByRole([seed, a, replica]) == [.master: 1, .replica: 0, .unmapped: 2])

        var single = RedisClusterTopology(seed: seed)
        _ = single.refreshToStart(now: .zero)
        single.notACluster(now: ms(1))
        #expect(single.countByRole([seed, seed]) == [.master: 2, .replica: 0, .unmapped: 0], "a single Redis is a master")
    }

    @Test func aSingleServerIsNeverAskedAgain() {
        var topology = RedisClusterTopology(seed: seed)
        _ = topology.refreshToStart(now: .zero)
        topology.notACluster(now: ms(1))
        #expect(topology.mode == .single)
        topology.unreachable(seed)
        #expect(topology.refreshToStart(now: .seconds(60)) == nil)
        #expect(topology.node(forSlot: 5) == seed)
    }
}
