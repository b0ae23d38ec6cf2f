import App
import CatalogStub
import Locking
import PureTestSupport
import Testing
import TestSupport

/// Floods that push the cache and the in-flight load table to their bounds.
extension AppE2ETests.FaultSuite {
    @Test(arguments: zip([32 << 10, 1 << 20], [50, 50]))
    func floodOf500UniqueIdsKeepsTheCacheWithinItsBounds(maxBytes: Int, maxEntries: Int) async throws {
        try await withE2E(configure: {
            $0.service.cacheMaxBytes = maxBytes
            $0.service.cacheMaxEntries = maxEntries
        }) { env in
            let samples = CacheSamples()
            let service = env.app.service
            let direct = Task {
                while !Task.isCancelled {
                    let (entries, bytes) = (service.cacheEntryCount, service.cacheBytes)
                    samples.withLock { $0.entries = max($0.entries, entries); $0.bytes = max($0.bytes, bytes) }
                    try? await Task.sleep(for: .milliseconds(1))
                }
            }
            let scraper = Task {
                while !Task.isCancelled {
                    guard let metrics = try? await env.metricsSnapshot(),
                          let entries = try? metrics.value("cache_entries"), let bytes = try? metrics.value("cache_bytes")
                    else { continue }
                    samples.withLock {
                        $0.scrapedEntries = max($0.scrapedEntries, entries)
                        $0.scrapedBytes = max($0.scrapedBytes, bytes)
                        $0.scrapes += 1
                    }
                }
            }
            let total = 500
            let flood = try await env.flood((1...total).map { "/products/p\($0)" }, concurrency: 20)
            direct.cancel()
            scraper.cancel()
            await direct.value
            await scraper.value
            #expect(flood.statuses == [200: total])

            let seen = samples.withLock { $0 }
            #expect(seen.scrapes > 0)
            #expect(seen.bytes <= maxBytes && seen.scrapedBytes <= Double(maxBytes), "cache bytes reached \(seen.bytes)")
            #expect(seen.entries <= maxEntries && seen.scrapedEntries <= Double(maxEntries), "cache entries reached \(seen.entries)")

            let metrics = try await env.metricsSnapshot()
            let entries = try metrics.value("cache_entries")
            #expect(entries >= 1 && entries <= Double(maxEntries))
            #expect(try metrics.value("cache_bytes") <= Double(maxBytes))
            // Every page was stored once; all but those still cached were evicted, and counted.
            #expect(try metrics.value("cache_requests_total", ["result": "miss"]) == Double(total))
            #expect(metrics.sum("cache_evictions_total") == Double(total) - entries)
            #expect(try metrics.value("cache_evictions_total", ["reason": "expired"]) == 0)
            let pageBytes = flood.replies.map(\.reply.body.count).max() ?? 0
            if pageBytes * maxEntries > maxBytes {
                #expect(try metrics.value("cache_evictions_total", ["reason": "bytes"]) > 0)
            } else {
                #expect(try metrics.value("cache_evictions_total", ["reason": "capacity"]) == Double(total - maxEntries))
                #expect(entries == Double(maxEntries))
            }
            #expect(try await env.get("/healthz").status == 200)
            // The most recent page is still a hit; the first one was evicted long ago.
            let last = try #require(flood.replies.last?.path)
            #expect(try await env.get(last).isHit)
            #expect(try await env.get("/products/p1").isLoaderMiss)
        }
    }

    @Test func fullLoadTableSheds503AtOnceWhileTheFiveLoadsWait() async throws {
        try await withE2E(configure: { $0.service.maxInFlightLoads = 5 }) { env in
            env.stub.pause(route: .all)
            let waiting = (1...5).map { index in Task { try await env.get("/products/p\(index)") } }
            await eventually(.live) { env.stub.pausedRequests == 15 }
            try await env.eventuallyMetric("inflight_loads") { $0 == 5 }

            let shed = try await Self.timed { try await env.get("/products/p6") }
            #expect(shed.reply.status == 503)
            #expect(shed.reply.header("Content-Type") == "application/problem+json")
            #expect(try shed.reply.json()["status"]?.int == 503)
            let retryAfter = try #require(shed.reply.header("Retry-After"))
            #expect(Int(retryAfter).map { $0 >= 1 } == true, "Retry-After: \(retryAfter)")
            #expect(shed.elapsed < .seconds(1), "503 after \(shed.elapsed)")
            // The five are still held: nothing answered, the sixth asked no upstream.
            let during = try await env.metricsSnapshot()
            #expect(try during.value("http_requests_total", Self.requests(200)) == 0)
            #expect(try during.value("http_requests_total", Self.requests(503)) == 1)
            #expect(try during.value("inflight_loads") == 5)
            #expect(try during.value("loads_total") == 5)
            #expect(env.stub.pausedRequests == 15)
            #expect(env.stub.stats().product == 5)

            env.stub.resume()
            for (offset, task) in waiting.enumerated() {
                let reply = try await task.value
                #expect(reply.status == 200)
                #expect(try reply.json() == (try env.expectedDetail("p\(offset + 1)")))
            }
            try await env.eventuallyMetric("inflight_loads") { $0 == 0 }
            // Shedding is not remembered: the sixth id loads now.
            let retried = try await env.get("/products/p6")
            #expect(retried.status == 200)
            #expect(retried.isLoaderMiss)
            let after = try await env.metricsSnapshot()
            #expect(try after.value("http_requests_total", Self.requests(200)) == 6)
            #expect(try after.value("http_requests_total", Self.requests(503)) == 1)
            #expect(try after.value("loads_total") == 6)
        }
    }
}

/// The largest cache sizes seen during a flood, read directly and through `/metrics`.
private final class CacheSamples: Sendable {
    struct Peaks: Sendable {
        var entries = 0
        var bytes = 0
        var scrapedEntries = 0.0
        var scrapedBytes = 0.0
        var scrapes = 0
    }

    private let peaks = Locked(Peaks())

    func withLock<T: Sendable>(_ body: (inout Peaks) -> T) -> T {
        peaks.withLock { body(&$0) }
    }
}
