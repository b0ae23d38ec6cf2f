@testable import Logging
import App
import CatalogStub
import EventLoop
import HTTP1
import HTTPClient
import ProductDetails
import PureTestSupport
import Testing
import TestSupport

/// Every end-to-end suite nests in this one, so they run one test at a time: each test starts
/// its own stub, app and client (six loop threads on a two-core machine), and the few time
/// bounds they check ("a 504 within the deadline") stay meaningful when nothing else competes.
@Suite(.serialized) struct AppE2ETests {}

/// One running environment: the catalog stub, the app pointed at it, and a test client.
struct E2E: Sendable {
    let stub: CatalogStub
    let app: Application
    /// The test's own client, on its own loop, with room for 200 connections to the app.
    let client: HTTPClient
    let origin: Origin
    let adminToken: String?

    var port: Int { app.port }

    /// One request to the app; the whole answer whatever its status.
    func request(
        _ method: HTTPMethod, _ path: String, headers: HTTPHeaders = HTTPHeaders(), timeout: Duration = .seconds(30)
    ) async throws -> Reply {
        let response = try await client.execute(method, origin, path: path, headers: headers, timeout: timeout)
        return Reply(status: response.status.code, headers: response.headers, body: response.body)
    }

    func get(_ path: String, headers: HTTPHeaders = HTTPHeaders()) async throws -> Reply {
        try await request(.get, path, headers: headers)
    }

    /// `DELETE` with `Authorization: Bearer <token>` (the configured one unless given).
    func delete(_ path: String, token: String? = nil) async throws -> Reply {
        var headers = HTTPHeaders()
        if let token = token ?? adminToken { headers.add(name: "Authorization", value: "Bearer \(token)") }
        return try await request(.delete, path, headers: headers)
    }

    /// A raw socket to the app, for exact bytes on the wire and for clients that go away.
    func raw() async throws -> RawClient {
        try await RawClient.connect(port: port)
    }

    /// The page the contract promises for `id`, built from what the stub serves for its three parts.
    func expectedDetail(_ id: String) throws -> JSONValue {
        let catalog = stub.catalog
        return .object([
            ("product", try JSONValue.parse(try #require(catalog.productJSON(id)))),
            ("reviews", try JSONValue.parse(try #require(catalog.reviewsJSON(id)))),
            ("suggested", try JSONValue.parse(try #require(catalog.suggestionsJSON(id)))),
        ])
    }

    /// A batch item for `id`: the page, after the id it answers.
    func expectedBatchItem(_ id: String) throws -> JSONValue {
        guard case .object(let members) = try expectedDetail(id) else { return .null }
        return .object([("id", .string(id))] + members)
    }

    /// Total upstream requests the stub has received on its three routes.
    var upstreamRequests: Int {
        let stats = stub.stats()
        return stats.product + stats.reviews + stats.suggested
    }
}

/// An answer of the app.
struct Reply: Sendable {
    let status: Int
    let headers: HTTPHeaders
    let body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }
    func header(_ name: String) -> String? { headers[name] }
    var cacheStatus: String { headers["Cache-Status"] ?? "" }
    func json() throws -> JSONValue { try JSONValue.parse(body) }

    /// The `Cache-Status` parameters after the cache name: `["fwd=miss", "collapsed", "ttl=60"]`.
    var cacheStatusParameters: [String] {
        cacheStatus.split(separator: ";").dropFirst().map { String($0.trimmingPrefix(" ")) }
    }

    var isLoaderMiss: Bool { cacheStatusParameters.contains("fwd=miss") && !cacheStatusParameters.contains("collapsed") }
    var isCollapsed: Bool { cacheStatusParameters.contains("fwd=miss") && cacheStatusParameters.contains("collapsed") }
    var isHit: Bool { cacheStatusParameters.contains("hit") }
    var isStale: Bool { cacheStatusParameters.contains("fwd=stale") }
}

/// Settings every end-to-end test starts from: loopback, ephemeral ports, two loops, quiet logs,
/// short retry backoff, no shutdown grace. Tests override what they exercise.
func baseConfiguration(stubPort: Int) -> AppConfiguration {
    var configuration = AppConfiguration()
    configuration.server.host = "127.0.0.1"
    configuration.server.port = 0
    configuration.loops = 2
    configuration.logLevel = "error"
    configuration.shutdownGrace = .zero
    let url = "http://127.0.0.1:\(stubPort)"
    configuration.productsURL = url
    configuration.reviewsURL = url
    configuration.suggestionsURL = url
    configuration.adminToken = "e2e-admin-token"
    configuration.service.retry.baseDelay = .milliseconds(2)
    configuration.service.retry.maxDelay = .milliseconds(20)
    return configuration
}

/// A stub on 127.0.0.1 and a port the kernel picks, not yet started.
func loopbackStub(group: EventLoopGroup, configure: (inout StubConfiguration) -> Void = { _ in }) -> CatalogStub {
    var configuration = StubConfiguration()
    configuration.host = "127.0.0.1"
    configuration.port = 0
    configure(&configuration)
    return CatalogStub(group: group, configuration: configuration)
}

/// Runs `body` against a stub (its own one-loop group), the app (`Application.start`, two loops)
/// and a test client (its own one-loop group), all on 127.0.0.1 and ephemeral ports. Teardown
/// always runs, in reverse order of start, whether `body` returns or throws.
func withE2E(
    configure: (inout AppConfiguration) -> Void = { _ in },
    stub configureStub: (inout StubConfiguration) -> Void = { _ in },
    logDestination: LogDestination = .collector { _ in },
    _ body: (E2E) async throws -> Void
) async throws {
    let stubGroup = try EventLoopGroup(loopCount: 1)
    let stub = loopbackStub(group: stubGroup, configure: configureStub)
    let stubPort: Int
    do {
        stubPort = try await stub.start()
    } catch {
        await stub.shutdown()
        stubGroup.shutdown()
        throw error
    }

    var configuration = baseConfiguration(stubPort: stubPort)
    configure(&configuration)
    let app: Application
    do {
        app = try await Application.start(configuration: configuration, logDestination: logDestination)
    } catch {
        await stub.shutdown()
        stubGroup.shutdown()
        throw error
    }

    let clientGroup: EventLoopGroup
    do {
        clientGroup = try EventLoopGroup(loopCount: 1)
    } catch {
        await app.stop()
        await stub.shutdown()
        stubGroup.shutdown()
        throw error
    }
    var clientConfiguration = HTTPClientConfiguration()
    clientConfiguration.maxConnectionsPerPool = 200
    clientConfiguration.userAgent = "app-e2e-tests"
    let client = HTTPClient(group: clientGroup, configuration: clientConfiguration)

    let environment = E2E(
        stub: stub, app: app, client: client, origin: Origin(host: "127.0.0.1", port: app.port),
        adminToken: configuration.adminToken)
    var failure: (any Error)?
    do {
        try await body(environment)
    } catch {
        failure = error
    }
    // Nothing may stay held at the stub, whatever the test did.
    stub.resume()
    await client.shutdown()
    await app.stop()
    await stub.shutdown()
    clientGroup.shutdown()
    stubGroup.shutdown()
    if let failure { throw failure }
}

extension E2E {
    /// One sample of the app's `GET /metrics` (`product_details_` + `name`, with exactly these
    /// labels), 0 when the series does not exist yet. Scraped over a connection of its own, so
    /// it works while the test client's pool is saturated.
    func metric(_ name: String, _ labels: [String: String] = [:]) async throws -> Double {
        let connection = try await raw()
        defer { connection.close() }
        let reply = try await connection.request("/metrics", headers: [("Connection", "close")])
        try #require(reply.status == 200)
        return try #require(PrometheusText.value(of: "product_details_" + name, labels: labels, in: reply.text))
    }

    /// Polls a metric until `condition` holds (see `eventually`).
    @discardableResult
    func eventuallyMetric(_ name: String, _ labels: [String: String] = [:], _ condition: (Double) -> Bool) async throws -> Bool {
        try await eventually(.live) { condition(try await metric(name, labels)) }
    }
}

/// Just enough of the Prometheus text format 0.0.4 to read one sample.
enum PrometheusText {
    /// The value of the series `name` with exactly `labels`; 0 when absent; nil when unparsable.
    static func value(of name: String, labels: [String: String], in text: String) -> Double? {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " ") else { continue }
            let series = line[..<space]
            let value = line[line.index(after: space)...]
            let seriesName: Substring
            var seriesLabels: [String: String] = [:]
            if let open = series.firstIndex(of: "{"), series.hasSuffix("}") {
                seriesName = series[..<open]
                guard let parsed = parseLabels(series[series.index(after: open)..<series.index(before: series.endIndex)]) else { return nil }
                seriesLabels = parsed
            } else {
                seriesName = series
            }
            if seriesName == name && seriesLabels == labels { return Double(value) }
        }
        return 0
    }

    /// `a="x",b="y"` (values without escapes, which is all this service writes).
    private static func parseLabels(_ text: Substring) -> [String: String]? {
        var labels: [String: String] = [:]
        var rest = text
        while !rest.isEmpty {
            guard let equals = rest.firstIndex(of: "=") else { return nil }
            let key = String(rest[..<equals])
            rest = rest[rest.index(after: equals)...]
            guard rest.first == "\"" else { return nil }
            rest = rest.dropFirst()
            guard let close = rest.firstIndex(of: "\"") else { return nil }
            labels[key] = String(rest[..<close])
            rest = rest[rest.index(after: close)...]
            if rest.first == "," { rest = rest.dropFirst() }
        }
        return labels
    }
}
