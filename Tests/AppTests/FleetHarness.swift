@testable import App
import CatalogStub
import EventLoop
import HTTP1
import HTTPClient
import PureTestSupport
import Redis
import RESP
import Testing
import TestSupport

/// Where a fleet keeps its shared cache in tests.
enum FleetBackend: Sendable {
    /// One `redis-server`.
    case single
    /// Six `redis-server`s in cluster mode (``RedisClusterServers``), `REDIS_URL` naming the first.
    case cluster
}

/// A fleet in one test process: a real `redis-server` (or a loopback Redis Cluster), one catalog
/// stub, and replicas (each an `Application` with its own loop) started with `REDIS_URL`
/// pointing at it.
final class Fleet: @unchecked Sendable {
    // `replicas` changes only in `restart(_:)`, which a test calls between its own requests.
    private let server: RedisServer?
    let cluster: RedisClusterServers?
    let stub: CatalogStub
    private(set) var replicas: [Application]
    let client: HTTPClient
    let configuration: AppConfiguration

    init(
        server: RedisServer?, cluster: RedisClusterServers?, stub: CatalogStub, replicas: [Application], client: HTTPClient,
        configuration: AppConfiguration
    ) {
        self.server = server
        self.cluster = cluster
        self.stub = stub
        self.replicas = replicas
        self.client = client
        self.configuration = configuration
    }

    /// The one `redis-server` of a fleet on a single Redis.
    var redis: RedisServer {
        guard let server else { preconditionFailure("a fleet on a cluster has no single redis-server") }
        return server
    }

    func get(_ replica: Int, _ path: String) async throws -> Reply {
        try await request(.get, replica, path)
    }

    func delete(_ replica: Int, _ path: String) async throws -> Reply {
        var headers = HTTPHeaders()
        headers.add(name: "Authorization", value: "Bearer \(configuration.adminToken ?? "")")
        return try await request(.delete, replica, path, headers: headers)
    }

    private func request(_ method: HTTPMethod, _ replica: Int, _ path: String, headers: HTTPHeaders = HTTPHeaders()) async throws -> Reply {
        let origin = Origin(host: "127.0.0.1", port: replicas[replica].port)
        let response = try await client.execute(method, origin, path: path, headers: headers, timeout: .seconds(30))
        return Reply(status: response.status.code, headers: response.headers, body: response.body)
    }

    /// One series of a replica's `/metrics` (`product_details_` + `name`), 0 when absent.
    func metric(_ replica: Int, _ name: String, _ labels: [String: String] = [:]) async throws -> Double {
        let reply = try await get(replica, "/metrics")
        return try #require(PrometheusText.value(of: "product_details_" + name, labels: labels, in: reply.text))
    }

    /// Polls a replica's metric until `condition` holds (see `eventually`).
    @discardableResult
    func eventuallyMetric(_ replica: Int, _ name: String, _ labels: [String: String] = [:], _ condition: (Double) -> Bool) async throws -> Bool {
        try await eventually(.live) { condition(try await metric(replica, name, labels)) }
    }

    /// Upstream requests the stub received on its three routes.
    var upstreamRequests: (product: Int, reviews: Int, suggested: Int) {
        let stats = stub.stats()
        return (stats.product, stats.reviews, stats.suggested)
    }

    /// `requests` clients asking every replica in turn for one uncached page while its product
    /// call is held at the stub: one replica loads, the others wait for its page, and each
    /// upstream route is called once for the whole fleet.
    func herdCallsEachUpstreamRouteOnce(requests: Int) async throws {
        stub.pause(route: .product)
        let answers = try await withThrowingTaskGroup(of: Reply.self) { group in
            for index in 0..<requests {
                group.addTask { try await self.get(index % 3, "/products/p7") }
            }
            // One replica's load waits at the stub; the others wait for its page.
            await eventually(.live) { self.stub.pausedRequests == 1 }
            try await eventually(.live) {
                var waiting = 0.0
                for replica in 0..<3 { waiting += try await self.metric(replica, "leases_total", ["result": "waited"]) }
                return waiting == 2
            }
            stub.resume()
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.allSatisfy { $0.status == 200 })
        #expect(Set(answers.map(\.body)).count == 1)
        let calls = upstreamRequests
        #expect(calls.product == 1 && calls.reviews == 1 && calls.suggested == 1, "\(calls)")
    }

    /// Stops replica `index` and starts a new one in its place (an empty L1).
    /// Stops replica `index` and starts a new one in its place; returns once it shares.
    func restart(_ index: Int) async throws {
        await replicas[index].stop()
        replicas[index] = try await Application.start(configuration: configuration)
        try await waitUntilSharing(index)
    }

    /// Waits until replica `index` is subscribed (no invalidation is missed from now on) and has
    /// read the fleet's invalidation log: before that it neither serves shared pages nor stores
    /// them, and a test expecting a shared hit would race the log's read.
    func waitUntilSharing(_ index: Int) async throws {
        try #require(try await eventuallyMetric(index, "redis_subscriber_connected") { $0 == 1 })
        try #require(try await eventuallyMetric(index, "invalidation_log_read") { $0 == 1 })
    }

    /// Sends `command` to every Redis node (the one server, or the cluster's six), each over a
    /// connection of its own; their replies, in the order of the ports.
    func sendToEveryNode(_ command: RESPCommand) async throws -> [RESPValue] {
        guard let cluster else {
            let (port, password) = (redis.port, redis.password)
            return try await RawClient.blocking { try BlockingRedisExchange.replies(port: port, password: password, [command]) }
        }
        var replies: [RESPValue] = []
        for port in cluster.ports { replies.append(try await cluster.send(command, to: port)) }
        return replies
    }

    /// Kills Redis: the one server, or every node of the cluster at once.
    func killRedis() {
        if let cluster { cluster.killAll() } else { redis.stop() }
    }

    /// Starts the killed Redis again on its ports; returns once it answers (a cluster: once it is
    /// settled).
    func restartRedis() async throws {
        if let cluster { try await cluster.restartKilled() } else { try redis.restart() }
    }
}

/// Runs `body` against `count` replicas sharing a fresh `redis-server` (or a fresh loopback Redis
/// Cluster) and one catalog stub. With a `password`, every node requires it (`requirepass`, and
/// `masterauth` on a cluster) and `REDIS_URL` gives it. Teardown always runs.
func withFleet(
    replicas count: Int = 3,
    backend: FleetBackend = .single,
    password: String? = nil,
    configure: (inout AppConfiguration) -> Void = { _ in },
    _ body: (Fleet) async throws -> Void
) async throws {
    let server = backend == .single ? try await RedisServer.started(password: password) : nil
    let cluster = backend == .cluster ? try await RedisClusterServers.started(password: password) : nil
    let redisPort = server?.port ?? cluster?.ports[0] ?? 0
    let stubGroup = try EventLoopGroup(loopCount: 1)
    let stub = loopbackStub(group: stubGroup)
    let clientGroup = try EventLoopGroup(loopCount: 1)
    var clientConfiguration = HTTPClientConfiguration()
    clientConfiguration.maxConnectionsPerPool = 200
    let client = HTTPClient(group: clientGroup, configuration: clientConfiguration)
    var replicas: [Application] = []
    var failure: (any Error)?
    var configuration = AppConfiguration()
    do {
        let stubPort = try await stub.start()
        configuration = baseConfiguration(stubPort: stubPort)
        configuration.loops = 1
        configuration.redisURL = RedisURL(host: "127.0.0.1", port: redisPort, password: password)
        configure(&configuration)
        for _ in 0..<count {
            replicas.append(try await Application.start(configuration: configuration))
        }
        let fleet = Fleet(server: server, cluster: cluster, stub: stub, replicas: replicas, client: client, configuration: configuration)
        for index in 0..<count { try await fleet.waitUntilSharing(index) }
        do {
            try await body(fleet)
        } catch {
            failure = error
        }
        replicas = fleet.replicas
    } catch {
        failure = error
    }
    stub.resume()
    await client.shutdown()
    for replica in replicas { await replica.stop() }
    await stub.shutdown()
    clientGroup.shutdown()
    stubGroup.shutdown()
    server?.stop()
    cluster?.stop()
    if let failure { throw failure }
}
