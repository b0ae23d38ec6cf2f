/// One node of a `RedisClusterServers` as a node of the cluster sees it (a line of `CLUSTER NODES`).
package struct RedisClusterNode: Sendable, Hashable, CustomStringConvertible {
    package enum Role: Sendable, Hashable {
        case master, replica
    }

    /// The node's id: it keeps it when its role changes (a failover, a rejoin).
    package let id: String
    package let port: Int
    package let busPort: Int
    package let role: Role
    /// The master a replica copies; nil for a master.
    package let masterID: String?
    /// The slots a master serves, in ranges; empty for a replica (and a failed master).
    package let slots: [ClosedRange<Int>]
    /// Flagged `fail` (not the `fail?` of a single node's suspicion): the cluster agreed it is gone.
    package let failed: Bool

    package init(id: String, port: Int, busPort: Int, role: Role, masterID: String?, slots: [ClosedRange<Int>], failed: Bool) {
        self.id = id
        self.port = port
        self.busPort = busPort
        self.role = role
        self.masterID = masterID
        self.slots = slots
        self.failed = failed
    }

    package var slotCount: Int {
        slots.reduce(0) { $0 + $1.count }
    }

    package func serves(slot: Int) -> Bool {
        slots.contains { $0.contains(slot) }
    }

    package var description: String {
        let role = role == .master ? "master" : "replica of \(masterID ?? "?")"
        return "\(port) \(id.prefix(8)) \(role)\(failed ? " (failed)" : "") \(slots.map { "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ","))"
    }

    /// The nodes of a `CLUSTER NODES` reply: `<id> <ip:port@cport[,hostname]> <flags> <master>
    /// <ping-sent> <pong-recv> <config-epoch> <link-state> <slot>...`. Nil when a line does not
    /// read as one (a node still in handshake has no address yet): the caller looks again later.
    package static func parse(clusterNodes text: String) -> [RedisClusterNode]? {
        var nodes: [RedisClusterNode] = []
        for line in text.split(whereSeparator: \.isNewline) {
            let fields = line.split(separator: " ")
            guard fields.count >= 8 else { return nil }
            let address = fields[1].split(separator: ",")[0]
            guard let at = address.firstIndex(of: "@"), let colon = address[..<at].lastIndex(of: ":"),
                  let port = Int(address[address.index(after: colon)..<at]),
                  let busPort = Int(address[address.index(after: at)...]), port > 0
            else { return nil }
            let flags = Set(fields[2].split(separator: ","))
            guard !flags.contains("handshake"), !flags.contains("noaddr") else { return nil }
            let role: Role
            if flags.contains("master") {
                role = .master
            } else if flags.contains("slave") {
                role = .replica
            } else {
                return nil
            }
            var slots: [ClosedRange<Int>] = []
            // Entries in brackets are slots being migrated or imported, still served by this node.
            for entry in fields.dropFirst(8) where !entry.hasPrefix("[") {
                let bounds = entry.split(separator: "-").compactMap { Int($0) }
                guard let first = bounds.first, let last = bounds.last, bounds.count <= 2, first <= last else { return nil }
                slots.append(first...last)
            }
            nodes.append(RedisClusterNode(
                id: String(fields[0]), port: port, busPort: busPort, role: role,
                masterID: fields[3] == "-" ? nil : String(fields[3]), slots: slots, failed: flags.contains("fail")))
        }
        return nodes.sorted { $0.port < $1.port }
    }
}
