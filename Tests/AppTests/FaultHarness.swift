import App
import CatalogStub
import EventLoop
import Foundation
import HTTP1
import HTTPClient
import Locking
import ProductDetails
import Testing
import TestSupport

/// Helpers of the fault suite (FaultSuiteTests.swift): a flood of requests through a client of its
/// own (so that, once it is shut down, the app's connection gauge must return to what it was), one
/// scrape read many times, and a loopback port where nothing listens.

/// One answer of a flood and how long the client waited for it.
struct TimedReply: Sendable {
    let path: String
    let reply: Reply
    let elapsed: Duration
}

/// What a flood saw.
struct FloodResult: Sendable {
    let replies: [TimedReply]
    /// Most connections the stub counted open at once, sampled about every millisecond. The stub
    /// counts a connection until its own loop has handled the close, so while the app closes and
    /// reopens connections (aborted attempts, resets) this runs ahead of what the app holds.
    let peakStubConnections: Int

    var slowest: Duration { replies.map(\.elapsed).max() ?? .zero }
    var statuses: [Int: Int] { replies.reduce(into: [:]) { $0[$1.reply.status, default: 0] += 1 } }
}

/// One `GET /metrics`, read as often as needed.
struct MetricsSnapshot: Sendable {
    let text: String

    /// `product_details_` + `name` with exactly `labels`; 0 when the series does not exist.
    func value(_ name: String, _ labels: [String: String] = [:]) throws -> Double {
        try #require(PrometheusText.value(of: "product_details_" + name, labels: labels, in: text))
    }

    /// Every series of `product_details_` + `name` whose labels include `labels`, summed.
    func sum(_ name: String, where labels: [String: String] = [:]) -> Double {
        var total = 0.0
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            let series = line[..<space]
            let seriesName = series.firstIndex(of: "{").map { series[..<$0] } ?? series
            guard seriesName == "product_details_" + name else { continue }
            if labels.allSatisfy({ series.contains("\($0.key)=\"\($0.value)\"") }) { total += value }
        }
        return total
    }
}

extension E2E {
    /// One scrape of `/metrics` over a connection of its own (counted in `open_connections`
    /// while it lasts, like `metric(_:_:)`'s).
    func metricsSnapshot() async throws -> MetricsSnapshot {
        let connection = try await raw()
        defer { connection.close() }
        let reply = try await connection.request("/metrics", headers: [("Connection", "close")])
        try #require(reply.status == 200)
        return MetricsSnapshot(text: reply.text)
    }

    /// The most upstream connections the app may hold to the stub: one pool per upstream and
    /// loop (the three upstream URLs are one origin).
    var upstreamConnectionCap: Int {
        app.configuration.loops * Upstream.allCases.count * app.configuration.client.maxConnectionsPerPool
    }

    /// Sends `paths` as GETs, at most `concurrency` at once, through a client of its own that is
    /// shut down (its connections closed) before this returns. Samples the stub's open connections
    /// while the flood runs.
    func flood(_ paths: [String], concurrency: Int, headers: HTTPHeaders = HTTPHeaders()) async throws -> FloodResult {
        let group = try EventLoopGroup(loopCount: 1)
        var configuration = HTTPClientConfiguration()
        configuration.maxConnectionsPerPool = max(1, concurrency)
        configuration.userAgent = "fault-flood"
        let client = HTTPClient(group: group, configuration: configuration)
        let origin = self.origin
        let stub = self.stub
        let peak = Locked(0)
        let sampler = Task {
            while !Task.isCancelled {
                let open = stub.stats().openConnections
                peak.withLock { $0 = max($0, open) }
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
        let outcome: Result<[TimedReply], any Error>
        do {
            let replies = try await withThrowingTaskGroup(of: TimedReply.self) { tasks -> [TimedReply] in
                func send(_ path: String) {
                    tasks.addTask {
                        let started = ContinuousClock.now
                        let response = try await client.execute(.get, origin, path: path, headers: headers, timeout: .seconds(60))
                        return TimedReply(
                            path: path,
                            reply: Reply(status: response.status.code, headers: response.headers, body: response.body),
                            elapsed: ContinuousClock.now - started)
                    }
                }
                var next = 0
                while next < paths.count && next < concurrency {
                    send(paths[next])
                    next += 1
                }
                var replies: [TimedReply] = []
                while let reply = try await tasks.next() {
                    replies.append(reply)
                    if next < paths.count {
                        send(paths[next])
                        next += 1
                    }
                }
                return replies
            }
            outcome = .success(replies)
        } catch {
            outcome = .failure(error)
        }
        sampler.cancel()
        await sampler.value
        await client.shutdown()
        group.shutdown()
        return FloodResult(replies: try outcome.get(), peakStubConnections: peak.withLock { $0 })
    }
}
