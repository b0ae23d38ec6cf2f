/// What a client knows of the Redis it was pointed at: a single server, or a cluster and which
/// master serves each slot; and when to ask again. Pure: the client's shell asks it where a
/// slot goes and when to refresh, and tells it what came back, on the injected clock.
///
/// The first contact is the seed (`REDIS_URL`'s node). `CLUSTER SLOTS` tells which it is: a
/// server without cluster support answers an error, and everything goes to the seed. A cluster's
/// map is refreshed when a `MOVED` says it is wrong, when a node stops answering, and every
/// ``refreshInterval`` otherwise, asking any known node (masters first, the seed last), so the
/// seed's loss costs nothing once the map is known. Refreshes are at least ``minimumGap`` apart:
/// a herd of `MOVED` replies during a reshard asks once.
package struct RedisClusterTopology: Sendable {
    package enum Mode: Sendable, Equatable {
        case unknown, single, cluster
    }

    package let seed: RedisNodeAddress
    package let refreshInterval: Duration
    package let minimumGap: Duration
    private(set) package var mode = Mode.unknown
    private(set) package var map: RedisSlotMap?
    private var lastAttempt: Duration?
    private var lastSuccess: Duration?
    private var due = true
    private var refreshing = false

    package init(seed: RedisNodeAddress, refreshInterval: Duration = .seconds(10), minimumGap: Duration = .milliseconds(100)) {
        self.seed = seed
        self.refreshInterval = refreshInterval
        self.minimumGap = minimumGap
    }

    /// Where a request for `slot` goes (`nil`: a request with no key): its master, or the seed
    /// while the map is unknown or on a single server. A slot no master serves goes to the seed
    /// too, which answers `MOVED` or `CLUSTERDOWN`.
    package func node(forSlot slot: Int?) -> RedisNodeAddress {
        guard mode == .cluster, let map else { return seed }
        guard let slot else { return map.masters.first ?? seed }
        return map.master(forSlot: slot) ?? seed
    }

    /// `node`'s role in the map as last read; a single server is a master.
    package func role(of node: RedisNodeAddress) -> RedisNodeRole {
        switch mode {
        case .unknown: return .unmapped
        case .single: return node == seed ? .master : .unmapped
        case .cluster:
            guard let map else { return .unmapped }
            if map.masters.contains(node) { return .master }
            return map.replicas.contains { $0.contains(node) } ? .replica : .unmapped
        }
    }

    /// `nodes` (a node once per connection) counted by ``role(of:)``; every role is a key.
    package func countByRole(_ nodes: some Sequence<RedisNodeAddress>) -> [RedisNodeRole: Int] {
        var counts = Dictionary(uniqueKeysWithValues: RedisNodeRole.allCases.map { ($0, 0) })
        for node in nodes { counts[role(of: node), default: 0] += 1 }
        return counts
    }

    /// A redirect came back: a `MOVED` fixes its slot at once and asks for a refresh (the rest
    /// of the moved range likely moved too); an `ASK` changes nothing (a migration in progress).
    package mutating func redirected(_ redirect: RedisRedirect) {
        guard case .moved(let slot, let node) = redirect else { return }
        mode = .cluster
        map = map ?? RedisSlotMap()
        map?.move(slot: slot, to: node)
        due = true
    }

    /// `node` could not be reached or stopped answering: its slots may have moved (a failover).
    package mutating func unreachable(_ node: RedisNodeAddress) {
        if mode != .single { due = true }
    }

    /// The nodes to ask for the map, in order, if a refresh should start now; it is then under
    /// way until ``refreshed(_:now:)``, ``notACluster(now:)`` or ``refreshFailed(now:)``.
    package mutating func refreshToStart(now: Duration) -> [RedisNodeAddress]? {
        guard !refreshing, mode != .single else { return nil }
        if let lastAttempt, now - lastAttempt < minimumGap { return nil }
        let periodic = lastSuccess.map { now - $0 >= refreshInterval } ?? true
        guard due || periodic else { return nil }
        refreshing = true
        lastAttempt = now
        var nodes: [RedisNodeAddress] = []
        for node in (map?.masters ?? []) + (map?.replicas.flatMap { $0 } ?? []) + [seed] where !nodes.contains(node) {
            nodes.append(node)
        }
        return nodes
    }

    /// A node answered the map. Returns what changed for the log, or nil when nothing did.
    @discardableResult
    package mutating func refreshed(_ map: RedisSlotMap, now: Duration) -> RedisTopologyChange? {
        refreshing = false
        due = false
        lastSuccess = now
        let before = self.map
        self.map = map
        let wasCluster = mode == .cluster
        mode = .cluster
        guard !wasCluster || before != map else { return nil }
        return RedisTopologyChange(masters: map.masters, uncoveredSlots: map.uncoveredSlots)
    }

    /// The seed answered that it is no cluster: everything goes to it, for good.
    package mutating func notACluster(now: Duration) {
        refreshing = false
        due = false
        lastSuccess = now
        mode = .single
        map = nil
    }

    /// No node answered: try again after the minimum gap.
    package mutating func refreshFailed(now: Duration) {
        refreshing = false
        due = true
    }
}

/// A new cluster map, as the log line tells it.
package struct RedisTopologyChange: Sendable, Equatable {
    package let masters: [RedisNodeAddress]
    package let uncoveredSlots: Int

    package init(masters: [RedisNodeAddress], uncoveredSlots: Int) {
        self.masters = masters
        self.uncoveredSlots = uncoveredSlots
    }
}

/// What a node is to the client in the slot map as last read: the label of the gauge that
/// counts command connections, so an operator sees one connection per master and loop, and
/// whether the client still holds connections to nodes that left the map.
package enum RedisNodeRole: String, Sendable, CaseIterable {
    /// Serves slots; a single Redis counts as one.
    case master
    /// Copies a master: the client connects to one only to read the map from it.
    case replica
    /// Named by no map read yet: the seed before the first read, or a failed master.
    case unmapped
}
