import EventLoop
import Foundation
import Locking
import Testing
import TestSupport

@testable import App

/// Edge-triggered polling only when proven: the start-up check's outcome is in the `listening`
/// line and a gauge, and when the interposed epoll functions are bypassed (a test hook standing
/// for a libuv that does not call them) the service warns once, polls level-triggered, and still
/// serves connections correctly.
@Suite("Polling fallback")
struct PollingFallbackTests {
    private func startUpLines(_ output: String) -> [[String: Any]] {
        output.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    @Test func theCheckPassesHereAndTheServicePollsEdgeTriggered() async throws {
        let output = Locked<String>("")
        try await withE2E(configure: { $0.logLevel = "warn" }, logDestination: .collector { batch in output.withLock { $0 += String(decoding: batch, as: UTF8.self) } }) { env async throws in
            let client = try await env.raw()
            defer { client.close() }
            #expect(try await client.request("/healthz").status == 200)
            let inode = try #require(try EpollRegistration.acceptedSocketInode(port: env.app.port))
            let events = try #require(try EpollRegistration.allInProcess().first { $0.inode == inode }?.events)
            #expect(events & EpollRegistration.edgeTriggered != 0)
            #expect(try await env.metric("edge_triggered_polling") == 1)
        }
        let lines = startUpLines(output.withLock { $0 })
        let listening = try #require(lines.first { $0["msg"] as? String == "listening" })
        #expect(listening["polling"] as? String == "edge")
        #expect(listening["pollingCheck"] as? String == "passed")
    }

    @Test(arguments: [EpollInterposerBypass.registrations, .reports])
    func aBypassedInterposerMeansOneWarningAndLevelTriggeredConnectionsThatStillWork(bypass: EpollInterposerBypass) async throws {
        let output = Locked<String>("")
        try await withE2E(
            configure: {
                $0.logLevel = "warn"
                $0.epollInterposerBypass = bypass
            },
            logDestination: .collector { batch in output.withLock { $0 += String(decoding: batch, as: UTF8.self) } }
        ) { env async throws in
            #expect(try await env.metric("edge_triggered_polling") == 0)
            let client = try await env.raw()
            defer { client.close() }
            // Keep-alive, then three pipelined requests, then a page larger than one read.
            for index in 1...20 { #expect(try await client.request("/products/p\(index)").status == 200) }
            try await client.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\nGET /products/p1 HTTP/1.1\r\nHost: t\r\n\r\nGET /readyz HTTP/1.1\r\nHost: t\r\n\r\n")
            for _ in 0..<3 { #expect(try await client.readResponse().status == 200) }
            let inode = try #require(try EpollRegistration.acceptedSocketInode(port: env.app.port))
            let events = try #require(try EpollRegistration.allInProcess().first { $0.inode == inode }?.events)
            #expect(events & EpollRegistration.edgeTriggered == 0, "polled level-triggered")
            // A client that half-closes after its request still gets its answer from an immediate route.
            let closing = try await env.raw()
            defer { closing.close() }
            try await closing.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            closing.shutdownWrite()
            #expect(try await closing.readResponse().status == 200)
        }
        let lines = startUpLines(output.withLock { $0 })
        let warnings = lines.filter { $0["level"] as? String == "warn" && ($0["msg"] as? String)?.contains("edge-triggered polling") == true }
        #expect(warnings.count == 1)
        let reason = warnings.first?["reason"] as? String ?? ""
        let function = bypass == .registrations ? "epoll_ctl" : "epoll_wait"
        #expect(reason.contains(function), "\(reason)")
        let listening = try #require(lines.first { $0["msg"] as? String == "listening" })
        #expect(listening["polling"] as? String == "level")
        let check = listening["pollingCheck"] as? String ?? ""
        #expect(check.hasPrefix("failed: loop 0: "), "\(check)")
    }
}
