import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The service's standard output on a pipe whose reader stops reading (`product-details | less`,
/// a log shipper under pressure): the service must go on answering, drop request lines, count
/// them, and say so once the reader drains the pipe.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct LogBackpressureTests {
    private func droppedLines(_ port: Int) async throws -> Int {
        let scrape = String(decoding: try await oneShotGet(port, "/metrics").body, as: UTF8.self)
        return scrape.split(separator: "\n")
            .filter { $0.hasPrefix("product_details_log_lines_dropped_total{") }
            .compactMap { Int($0.split(separator: " ").last ?? "") }
            .reduce(0, +)
    }

    private func reportedDrops(in log: String) -> Int {
        log.split(separator: "\n").compactMap { line -> Int? in
            guard line.contains(#""msg":"log lines dropped"#) else { return nil }
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object?["dropped"] as? Int
        }.reduce(0, +)
    }

    @Test func aPipeNobodyReadsNeverStallsAnswersAndTheDropsAreReportedOnceItDrains() async throws {
        let service = try ServiceProcess(
            environment: ["LOG_LEVEL": "info", "LOG_BUFFER_BYTES": "65536"], holdingOutput: true)
        // 10,000 requests, health checks and pages, over four keep-alive connections; each
        // answer must come within the client's read timeout while nobody reads the log.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for connection in 0..<4 {
                group.addTask {
                    let client = try RawClient(port: service.port, readTimeoutSeconds: 5)
                    defer { client.close() }
                    for index in 0..<2500 {
                        let path = index % 2 == 0 ? "/healthz" : "/products/p\(connection * 100 + index % 50 + 1)"
                        let answer = try await client.request(path)
                        #expect(answer.status == 200, "\(path)")
                    }
                }
            }
            try await group.waitForAll()
        }
        let droppedWhileStuck = try await droppedLines(service.port)
        #expect(droppedWhileStuck > 5000, "a 64 KiB pipe and a 64 KiB buffer hold far fewer than 10,000 lines")
        #expect(reportedDrops(in: service.log) == 0)

        service.releaseOutput()
        var reported = 0
        var counted = -1
        for _ in 0..<1000 where reported == 0 || reported != counted {
            try await Task.sleep(for: .milliseconds(20))
            reported = reportedDrops(in: service.log)
            if reported > 0 { counted = try await droppedLines(service.port) }
        }
        #expect(reported == counted, "the drop reports add up to the counter")
        #expect(reported >= droppedWhileStuck)
        service.signal(SIGTERM)
        #expect(service.waitForExit(seconds: 15) == 0)
        #expect(service.log.contains(#""msg":"stopped""#), "shutdown flushed the last lines")
    }
}
