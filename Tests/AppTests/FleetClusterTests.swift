@testable import App
import Foundation
import Locking
import PureTestSupport
import Redis
import RESP
import Testing
import TestSupport

extension AppE2ETests {
    /// Issue 31: three replicas on a real Redis Cluster (six nodes on loopback, three masters with
    /// a replica each), `REDIS_URL` naming one node. The rules are the unit tests'; these show
    /// the cluster's own behaviour: keys spread over the masters, redirects, a truthful receivers
    /// count, a master's failover and a reshard under traffic.
    @Suite(.timeLimit(.minutes(3))) struct FleetOnACluster {
        /// Catalog ids whose keys live on `master`, none asked for yet (in no replica's L1).
        static func ids(servedBy master: RedisClusterNode) -> some Sequence<String> {
            (5_000...10_000).lazy.map { "p\($0)" }.filter { master.serves(slot: RedisHashSlot.of($0)) }
        }

        /// On a cluster that requires a password (`REDIS_URL=redis://:pw@…`): every node the
        /// replicas learn of from the map is logged in to, the masters their pages go to and the
        /// invalidation channel's master their subscription moves to.
        @Test func herdsInvalidationsAndKeysBehaveAsOnOneRedis() async throws {
            try await withFleet(backend: .cluster, password: "fleet-cluster-secret") { fleet in
                let cluster = try #require(fleet.cluster)
                try await fleet.herdCallsEachUpstreamRouteOnce(requests: 90)

                // 300 pages: every master holds part of the shared cache.
                for index in 1...300 {
                    #expect(try await fleet.get(index % 3, "/products/p\(index)").status == 200)
                }
                for master in try await cluster.masters() {
                    let keys = try await cluster.send(RESPCommand("DBSIZE"), to: master.port).integer ?? 0
                    #expect(keys > 50, "master \(master.port) holds \(keys) keys")
                }
                #expect(try await fleet.metric(0, "redis_cluster_masters") == 3)
                // One loop: a command connection to each master, none to a replica.
                #expect(try await fleet.metric(0, "redis_command_connections", ["role": "master"]) == 3)
                #expect(try await fleet.metric(0, "redis_command_connections", ["role": "unmapped"]) == 0)

                // A page read back elsewhere is a shared hit.
                #expect(try await fleet.get(1, "/products/p3").cacheStatus.hasPrefix("product-details-shared; hit"))

                // Invalidations: every replica receives them, and the count says so truthfully.
                let one = try await fleet.delete(0, "/cache/products/p3")
                #expect(one.status == 204)
                #expect(one.header("X-Invalidation-Receivers") == "3")
                let all = try await fleet.delete(2, "/cache")
                #expect(all.header("X-Invalidation-Receivers") == "3")
                for replica in 0..<3 {
                    try await fleet.eventuallyMetric(replica, "invalidations_received_total", ["scope": "all"]) { $0 >= 1 }
                }
                let before = fleet.upstreamRequests.product
                let reloaded = try await fleet.get(1, "/products/p5")
                #expect(reloaded.status == 200)
                #expect(reloaded.cacheStatus.contains("fwd=miss"), "\(reloaded.cacheStatus)")
                #expect(fleet.upstreamRequests.product == before + 1, "the page from before DELETE /cache is not served")
            }
        }

        /// Which master a failover test kills.
        enum Victim: Sendable {
            /// One the client learned of from the map.
            case learned
            /// The seed, `REDIS_URL`'s node: the map is then read from the other nodes it knows.
            case seed
        }

        @Test(arguments: [Victim.learned, .seed])
        func aKilledMasterLosesNoPageAndSharingResumesAfterItsFailover(victim kind: Victim) async throws {
            try await withFleet(backend: .cluster) { fleet in
                let cluster = try #require(fleet.cluster)
                let masters = try await cluster.masters()
                // Not the invalidation channel's master: the reshard test moves the subscription.
                let channelSlot = RedisHashSlot.of("pd:v6:{invalidations}")
                let victim = try #require(masters.first { master in
                    !master.serves(slot: channelSlot) && (master.port == cluster.ports[0]) == (kind == .seed)
                })
                let traffic = Traffic(fleet: fleet)
                let running = Task { try await traffic.run() }
                await eventually(.live) { traffic.answered > 30 }
                cluster.kill(victim)
                let heir = try await cluster.waitForFailover(of: victim)
                let answeredAtPromotion = traffic.answered
                await eventually(.live) { traffic.answered > answeredAtPromotion + 30 }
                traffic.stop()
                try await running.value
                #expect(traffic.failures == [], "every page answered 200 from the loss to the promotion")
                // Sharing on the promoted master: a page one replica loads is a hit on another
                // (a new id each try: the first try's page is in both replicas' L1 after it). The
                // replicas may first wait out their Redis breaker (opened by the dead master) and
                // a map refresh: the polling's own limit bounds it.
                let ids = Array(Self.ids(servedBy: heir))
                var tried = 0
                var last = ""
                let resumed = try await eventually(.live) {
                    guard tried < ids.count else { return false }
                    let id = ids[tried]
                    tried += 1
                    let loaded = try await fleet.get(0, "/products/\(id)")
                    let read = try await fleet.get(1, "/products/\(id)")
                    last = "\(id): \(loaded.cacheStatus) | \(read.cacheStatus)"
                    return read.cacheStatus.hasPrefix("product-details-shared; hit")
                }
                #expect(resumed, "after \(tried) ids, the last: \(last)")
                // One connection to each master again, the promoted one included; none held
                // ready to a node out of the map.
                try await fleet.eventuallyMetric(0, "redis_command_connections", ["role": "master"]) { $0 == 3 }
                #expect(try await fleet.metric(0, "redis_command_connections", ["role": "unmapped"]) == 0)
                #expect(try await fleet.metric(0, "redis_cluster_masters") == 3)
            }
        }

        @Test func aReshardUnderTrafficLosesNoPageNorInvalidation() async throws {
            try await withFleet(backend: .cluster) { fleet in
                let cluster = try #require(fleet.cluster)
                let masters = try await cluster.masters()
                let traffic = Traffic(fleet: fleet)
                let running = Task { try await traffic.run() }
                await eventually(.live) { traffic.answered > 30 }
                try await cluster.reshard(slots: 1000, from: masters[0], to: masters[1])
                let answeredAfter = traffic.answered
                await eventually(.live) { traffic.answered > answeredAfter + 30 }
                traffic.stop()
                try await running.value
                #expect(traffic.failures == [], "no failed page during the reshard")
                let deleted = try await fleet.delete(0, "/cache/products/p1")
                #expect(deleted.status == 204)
                try await eventually(.live) {
                    try await fleet.delete(0, "/cache/products/p1").header("X-Invalidation-Receivers") == "3"
                }
                for replica in 0..<3 {
                    try await fleet.eventuallyMetric(replica, "invalidations_received_total", ["scope": "product"]) { $0 >= 1 }
                }
            }
        }
    }
}

/// Pages asked of the fleet's replicas in turn, a new id each, until stopped; failures recorded.
private final class Traffic: Sendable {
    let fleet: Fleet
    private let state = Locked((answered: 0, failures: [String](), stopped: false))

    init(fleet: Fleet) {
        self.fleet = fleet
    }

    var answered: Int { state.withLock { $0.answered } }
    var failures: [String] { state.withLock { $0.failures } }
    func stop() { state.withLock { $0.stopped = true } }

    func run() async throws {
        var index = 0
        while !state.withLock({ $0.stopped }) {
            // A new id each time (below the ids the tests keep for later): every page goes
            // through the shared cache, none is an L1 hit.
            let path = "/products/p\(1 + index % 4_999)"
            let reply = try await fleet.get(index % 3, path)
            state.withLock { state in
                state.answered += 1
                if reply.status != 200 { state.failures.append("\(path): \(reply.status) \(reply.text.prefix(100))") }
            }
            index += 1
        }
    }
}
