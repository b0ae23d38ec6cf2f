import RESP
import Redis
import Testing
import TestSupport

/// The loopback cluster the cluster tests and `make fleet CLUSTER=1` run on: what it promises
/// (the layout, a failover, a reshard), checked from outside with `CLUSTER SLOTS` and keys. Each
/// test has a cluster of its own (the faults would disturb the others); they run in parallel.
@Suite("A loopback Redis Cluster (RedisClusterServers)", .timeLimit(.minutes(4)))
struct RedisClusterServersTests {
    @Test func sixNodesAreThreeMastersWithOneReplicaEachServingEverySlotOnce() async throws {
        let cluster = try await RedisClusterServers.started()
        defer { cluster.stop() }
        let nodes = try await cluster.nodes()
        let masters = try await cluster.masters()
        #expect(nodes.map(\.port) == cluster.ports)
        #expect(masters.count == 3)
        #expect(nodes.filter { $0.role == .replica }.count == 3)
        for master in masters {
            #expect(nodes.filter { $0.masterID == master.id }.count == 1, "one replica of \(master)")
        }
        // Each bus port is a port of its own, not a client port plus 10,000 that may be taken.
        #expect(Set(nodes.map(\.busPort) + nodes.map(\.port)).count == 12)
        var owners = [Int](repeating: 0, count: RedisHashSlot.count)
        for master in masters {
            for range in master.slots {
                for slot in range { owners[slot] += 1 }
            }
        }
        #expect(owners.allSatisfy { $0 == 1 }, "every slot served by exactly one master")

        // What clients read: every node's CLUSTER SLOTS gives each range the same master, first.
        // A replica follows only once the node asked saw its replication offset past 0 (Redis 7.0
        // hides it until then: the first write, or the master's ping every 10 s), so the nodes'
        // lists of replicas may differ for a moment, and CLUSTER SHARDS tells the replicas.
        let slots = try await clusterSlots(of: cluster, asking: cluster.ports[0])
        #expect(slots.keys.reduce(0) { $0 + $1.count } == RedisHashSlot.count)
        for (range, ports) in slots {
            let master = try #require(masters.first { $0.port == ports.first })
            #expect(master.slots.contains(range))
            #expect(ports.dropFirst().allSatisfy { port in nodes.first { $0.port == port }?.masterID == master.id })
        }
        for port in cluster.ports.dropFirst() {
            #expect(try await clusterSlots(of: cluster, asking: port).mapValues(\.first) == slots.mapValues(\.first), "the view of \(port)")
        }
        let shards = try await clusterShards(of: cluster, asking: cluster.ports[0])
        #expect(shards.count == 3)
        for shard in shards {
            let master = try #require(masters.first { $0.port == shard.masterPort })
            #expect(shard.slots == master.slots)
            #expect(shard.replicaPorts.map { port in nodes.first { $0.port == port }?.masterID } == [master.id])
        }

        // A key lives on its slot's master; the other masters redirect to it.
        let key = "pd:v6:{p1}:page"
        let slot = RedisHashSlot.of(key)
        let owner = try #require(masters.first { $0.serves(slot: slot) })
        #expect(try await cluster.send(RESPCommand("SET", .string(key), "page"), to: owner.port).string == "OK")
        for other in masters where other != owner {
            #expect(try await cluster.send(RESPCommand("GET", .string(key)), to: other.port).errorMessage == "MOVED \(slot) 127.0.0.1:\(owner.port)")
        }
    }

    @Test func aKilledMasterIsReplacedByItsReplicaWithItsKeys() async throws {
        let cluster = try await RedisClusterServers.started()
        defer { cluster.stop() }
        let master = try await cluster.masters()[0]
        let replica = try #require(try await cluster.nodes().first { $0.masterID == master.id })
        let key = try #require((0...).lazy.map { "key\($0)" }.first { master.serves(slot: RedisHashSlot.of($0)) })
        let written = try await cluster.send([RESPCommand("SET", .string(key), "kept"), RESPCommand("WAIT", 1, 10_000)], to: master.port)
        #expect(written == [.simpleString(Array("OK".utf8)), .integer(1)], "stored, and copied to the replica")

        let clock = ContinuousClock()
        let killed = clock.now
        cluster.kill(master)
        let heir = try await cluster.waitForFailover(of: master, within: .seconds(60))
        // cluster-node-timeout (2 s), then the replica's election: about 4 s on a quiet host.
        let tookOver = clock.now - killed
        #expect(tookOver < .seconds(30))
        #expect(heir.id == replica.id && heir.port == replica.port)
        #expect(heir.slots == master.slots)
        #expect(try await cluster.send(RESPCommand("GET", .string(key)), to: heir.port).string == "kept")
        let after = try await cluster.nodes()
        #expect(after.first { $0.id == master.id }?.failed == true)
        #expect(try await cluster.masters().count == 3)
        let slots = try await clusterSlots(of: cluster, asking: heir.port)
        #expect(slots.filter { $0.value.first == heir.port }.keys.reduce(0) { $0 + $1.count } == master.slotCount)
        #expect(!slots.values.contains { $0.contains(master.port) }, "the dead master serves nothing")

        // Started again on its ports with its node file, it rejoins as the heir's replica.
        try await cluster.restartKilled()
        let rejoined = try #require(try await cluster.nodes().first { $0.id == master.id })
        #expect(rejoined.port == master.port && rejoined.busPort == master.busPort)
        #expect(rejoined.role == .replica && rejoined.masterID == heir.id && !rejoined.failed, "\(rejoined)")
    }

    @Test func aReshardOf1000SlotsMovesThemAndTheirKeysOnAClusterWithAPassword() async throws {
        let cluster = try await RedisClusterServers.started(password: "cluster-secret")
        defer { cluster.stop() }
        let refused = try await RawClient.connect(port: cluster.ports[0], readTimeoutSeconds: 10)
        try await refused.send("PING\r\n")
        #expect(String(decoding: try await refused.receiveSome(), as: UTF8.self).hasPrefix("-NOAUTH"))
        refused.close()

        let masters = try await cluster.masters()
        let (source, target) = (masters[0], masters[1])
        // One key in each of the source's slots, so that whichever slots move take keys along.
        var keys: [Int: String] = [:]
        var index = 0
        while keys.count < source.slotCount {
            let key = "key\(index)"
            let slot = RedisHashSlot.of(key)
            if source.serves(slot: slot), keys[slot] == nil { keys[slot] = key }
            index += 1
        }
        let stored = try await cluster.send(keys.values.map { RESPCommand("SET", .string($0), .string($0)) }, to: source.port)
        #expect(stored.allSatisfy { $0.string == "OK" })
        let before = try await clusterSlots(of: cluster, asking: source.port)

        try await cluster.reshard(slots: 1000, from: source, to: target)

        let after = try await clusterSlots(of: cluster, asking: target.port)
        func served(by port: Int, in slots: [ClosedRange<Int>: [Int]]) -> Set<Int> {
            Set(slots.filter { $0.value.first == port }.keys.flatMap { Array($0) })
        }
        let moved = served(by: source.port, in: before).subtracting(served(by: source.port, in: after))
        #expect(moved.count == 1000)
        #expect(served(by: target.port, in: after) == served(by: target.port, in: before).union(moved))
        #expect(after.keys.reduce(0) { $0 + $1.count } == RedisHashSlot.count)
        for port in cluster.ports where port != target.port {
            #expect(try await clusterSlots(of: cluster, asking: port).mapValues(\.first) == after.mapValues(\.first), "the view of \(port)")
        }
        let movedKeys = moved.sorted().compactMap { keys[$0] }
        #expect(movedKeys.count == 1000)
        let read = try await cluster.send(movedKeys.map { RESPCommand("GET", .string($0)) }, to: target.port)
        #expect(read.map(\.string) == movedKeys, "the keys moved with their slots")
        let slot = try #require(moved.min())
        #expect(try await cluster.send(RESPCommand("GET", .string(keys[slot] ?? "")), to: source.port).errorMessage == "MOVED \(slot) 127.0.0.1:\(target.port)")
    }

    /// `CLUSTER SHARDS` as the node on `port` answers it (RESP2: each map a flat array of names
    /// and values).
    private func clusterShards(of cluster: RedisClusterServers, asking port: Int) async throws -> [(slots: [ClosedRange<Int>], masterPort: Int?, replicaPorts: [Int])] {
        func fields(_ value: RESPValue) throws -> [String: RESPValue] {
            let flat = try #require(value.elements)
            return Dictionary(stride(from: 0, to: flat.count - 1, by: 2).map { (flat[$0].string ?? "", flat[$0 + 1]) }) { first, _ in first }
        }
        let reply = try await cluster.send(RESPCommand("CLUSTER", "SHARDS"), to: port)
        return try #require(reply.elements).map { shard in
            let shard = try fields(shard)
            let bounds = try #require(shard["slots"]?.elements).compactMap { $0.integer.map(Int.init) }
            let slots = stride(from: 0, to: bounds.count - 1, by: 2).map { bounds[$0]...bounds[$0 + 1] }
            let nodes = try #require(shard["nodes"]?.elements).map(fields)
            func ports(_ role: String) -> [Int] {
                nodes.filter { $0["role"]?.string == role }.compactMap { $0["port"]?.integer.map(Int.init) }
            }
            return (slots, ports("master").first, ports("replica"))
        }
    }

    /// `CLUSTER SLOTS` as the node on `port` answers it: each range with its master's port first,
    /// then its replicas' ports.
    private func clusterSlots(of cluster: RedisClusterServers, asking port: Int) async throws -> [ClosedRange<Int>: [Int]] {
        let reply = try await cluster.send(RESPCommand("CLUSTER", "SLOTS"), to: port)
        var slots: [ClosedRange<Int>: [Int]] = [:]
        for entry in try #require(reply.elements) {
            let fields = try #require(entry.elements)
            let first = try #require(fields[0].integer), last = try #require(fields[1].integer)
            slots[Int(first)...Int(last)] = try fields.dropFirst(2).map { node in
                try #require(node.elements?[1].integer.map(Int.init))
            }
        }
        return slots
    }
}
