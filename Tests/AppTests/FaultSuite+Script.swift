import App
import PureTestSupport
import Testing
import TestSupport

/// The script every fault test follows (see `FaultSuite`): warm-up, the bounds, the recovery.
extension AppE2ETests.FaultSuite {
    /// Loads and caches `p1`, zeroes the stub's counters, and returns the app's open
    /// connections as the test sees them (the harness client's and the scrape's own).
    static func warmUp(_ env: E2E) async throws -> Double {
        let reply = try await env.get("/products/p1")
        try #require(reply.status == 200)
        try #require(try await env.metric("cache_entries") == 1)
        env.stub.resetStats()
        return try await env.metric("open_connections")
    }

    static func timed(_ body: () async throws -> Reply) async throws -> (reply: Reply, elapsed: Duration) {
        let started = ContinuousClock.now
        let reply = try await body()
        return (reply, ContinuousClock.now - started)
    }

    /// "Memory stays bounded": no load left, no connection left beyond the test's own, the
    /// stub never held more connections than the app's pool cap, and the cache holds exactly
    /// what it should (no failure). Returns whether every check held (each also records).
    static func expectBounded(_ env: E2E, flood: FloodResult, connectionsBefore: Double, cacheEntries: Int) async throws -> Bool {
        var held = true
        func check(_ condition: Bool, _ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation) {
            if !condition {
                held = false
                Issue.record(comment, sourceLocation: sourceLocation)
            }
        }
        let loadsSettled = try await env.eventuallyMetric("inflight_loads") { $0 == 0 }
        check(loadsSettled, "loads still running")
        let connectionsSettled = try await env.eventuallyMetric("open_connections") { $0 == connectionsBefore }
        let connections = try await env.metric("open_connections")
        check(connectionsSettled, "open connections \(connections), the test holds \(connectionsBefore)")
        let cap = env.upstreamConnectionCap
        // What the app held: the client counts a socket from before it is created until its
        // descriptor is closed, so this peak is never below the real one. (The kernel's socket
        // table cannot be read atomically: while a flood opens and closes connections, both
        // /proc/net/tcp and a sock_diag dump counted sockets that were never open together,
        // up to five more than the cap.) The stub's own gauge lags behind the app's closes,
        // so it is checked once it has caught up.
        let appPeak = env.app.client.statistics.peakOpenConnections
        check(appPeak <= cap, "the app held \(appPeak) upstream connections at once; the pool cap is \(cap)")
        let scraped = try await env.metric("upstream_open_connections")
        check(scraped <= Double(cap), "upstream_open_connections \(scraped); the pool cap is \(cap)")
        let stubSettled = await eventually(.live) { env.stub.stats().openConnections <= cap }
        check(stubSettled, "the stub holds \(env.stub.stats().openConnections) connections; the pool cap is \(cap) (peak \(flood.peakStubConnections))")
        let entries = try await env.metric("cache_entries")
        check(entries == Double(cacheEntries), "cache_entries \(entries), expected \(cacheEntries)")
        check(env.app.service.cacheEntryCount == cacheEntries, "cache holds \(env.app.service.cacheEntryCount)")
        return held
    }

    /// `/healthz` answers while the fault is still on; once cleared, the flood's first id loads
    /// normally: a miss after a failing fault (its failure was not cached), a hit after a fault
    /// the service absorbed (the flood cached it).
    static func expectHealthyAndRecovers(_ env: E2E, floodCached: Bool = false) async throws {
        let health = try await env.get("/healthz")
        #expect(health.status == 200)
        #expect(try await env.get("/readyz").status == 200)
        env.stub.clearFaults()
        let id = "p1001"
        let reply = try await env.get("/products/\(id)")
        #expect(reply.status == 200)
        #expect(try reply.json() == (try env.expectedDetail(id)))
        #expect(floodCached ? reply.isHit : reply.isLoaderMiss, "Cache-Status: \(reply.cacheStatus)")
    }
}
