import RESP

/// Which master of a Redis Cluster serves each of the 16,384 slots, read from a `CLUSTER SLOTS`
/// reply: pure, so every reply shape is tested on plain values.
package struct RedisSlotMap: Sendable, Equatable {
    /// The masters, in the order the reply named them.
    package private(set) var masters: [RedisNodeAddress] = []
    /// Each master's replicas, by the master's index.
    package private(set) var replicas: [[RedisNodeAddress]] = []
    /// Per slot, the index of its master in `masters`; -1 when no node serves it.
    private var owners = [Int16](repeating: -1, count: RedisHashSlot.count)

    /// No slot served by any node: what a `MOVED` fills in before the first refresh.
    package init() {}

    /// Reads a `CLUSTER SLOTS` reply from `asked`, whose address stands for a node that did not
    /// know its own (an empty host). Refuses anything that is not exactly that shape, and ranges
    /// that overlap: a wrong map would send every command of a slot to the wrong node.
    package init(clusterSlots reply: RESPValue, asked: RedisNodeAddress) throws(RedisSlotMapError) {
        guard let ranges = reply.elements else { throw .malformed("the reply is not an array") }
        for (position, range) in ranges.enumerated() {
            guard let fields = range.elements, fields.count >= 3,
                  let start = fields[0].integer, let end = fields[1].integer,
                  (0..<Int64(RedisHashSlot.count)).contains(start), (start...Int64(RedisHashSlot.count - 1)).contains(end)
            else { throw .malformed("range \(position) is not [start, end, master, replicas…] within 0-16383") }
            let master = try Self.node(fields[2], asked: asked, position: position)
            let index = index(of: master)
            for replica in fields.dropFirst(3) {
                let node = try Self.node(replica, asked: asked, position: position)
                if !replicas[index].contains(node) { replicas[index].append(node) }
            }
            for slot in Int(start)...Int(end) {
                guard owners[slot] == -1 else { throw .malformed("slot \(slot) is in two ranges") }
                owners[slot] = Int16(index)
            }
        }
    }

    /// The master serving `slot`, if any.
    package func master(forSlot slot: Int) -> RedisNodeAddress? {
        let owner = owners[slot]
        return owner < 0 ? nil : masters[Int(owner)]
    }

    /// Slots no node serves (the cluster answers `CLUSTERDOWN` for them).
    package var uncoveredSlots: Int {
        owners.lazy.filter { $0 < 0 }.count
    }

    /// A `MOVED` reply: `slot` is now `to`'s, which may be a master not seen before.
    package mutating func move(slot: Int, to master: RedisNodeAddress) {
        owners[slot] = Int16(index(of: master))
    }

    /// `master`'s index, adding it when it is new.
    private mutating func index(of master: RedisNodeAddress) -> Int {
        if let index = masters.firstIndex(of: master) { return index }
        masters.append(master)
        replicas.append([])
        return masters.count - 1
    }

    /// `[host, port, id, …]`: the host may be empty (the node asked), the rest is not read.
    private static func node(_ value: RESPValue, asked: RedisNodeAddress, position: Int) throws(RedisSlotMapError) -> RedisNodeAddress {
        guard let fields = value.elements, fields.count >= 2, let host = fields[0].string, let port = fields[1].integer,
              (1...65535).contains(port)
        else { throw .malformed("range \(position) names a node that is not [host, port, …]") }
        return RedisNodeAddress(host: host.isEmpty || host == "?" ? asked.host : host, port: Int(port))
    }
}

/// Why a `CLUSTER SLOTS` reply could not be read.
package enum RedisSlotMapError: Error, Sendable, Equatable {
    case malformed(String)
}
