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

/// A fleet in one test process: a real `redis-server`, one catalog stub, and replicas (each an
/// `Application` with its own loop) started with `REDIS_URL` pointing at it.
final class Fleet: @unchecked Sendable {
    // `replicas` changes only in `restart(_:)`, which a test calls between its own requests.
    let redis: RedisServer
    let stub: CatalogStub
    private(set) var replicas: [Application]
    let client: HTTPClient
    let configuration: AppConfiguration

    init(redis: RedisServer, stub: CatalogStub, replicas: [Application], client: HTTPClient, configuration: AppConfiguration) {
        self.redis = redis
        self.stub = stub
        self.replicas = replicas
        self.client = client
        self.configuration = configuration
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

    /// Stops replica `index` and starts a new one in its place (an empty L1).
    func restart(_ index: Int) async throws {
        await replicas[index].stop()
        replicas[index] = try await Application.start(configuration: configuration)
    }

    /// Sends one command to Redis over a connection of its own.
    func redisCommand(_ arguments: RESPArgument...) async throws -> [UInt8] {
        let connection = try RawClient(port: redis.port, readTimeoutSeconds: 10)
        defer { connection.close() }
        var bytes: [UInt8] = []
        RESPCommand(arguments: arguments).encode(into: &bytes)
        try await connection.send(bytes)
        return try await connection.receiveSome()
    }
}

/// Runs `body` against `count` replicas sharing a fresh `redis-server` and one catalog stub.
/// Teardown always runs.
func withFleet(
    replicas count: Int = 3,
    configure: (inout AppConfiguration) -> Void = { _ in },
    _ body: (Fleet) async throws -> Void
) async throws {
    let redis = try await RedisServer.started()
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
        configuration.redisURL = RedisURL(host: "127.0.0.1", port: redis.port)
        configure(&configuration)
        for _ in 0..<count {
            replicas.append(try await Application.start(configuration: configuration))
        }
        let fleet = Fleet(redis: redis, stub: stub, replicas: replicas, client: client, configuration: configuration)
        for index in 0..<count {
            // Subscribed: from now on no invalidation is missed.
            try #require(try await fleet.eventuallyMetric(index, "redis_subscriber_connected") { $0 == 1 })
        }
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
    redis.stop()
    if let failure { throw failure }
}
