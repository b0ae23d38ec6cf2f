import App
import CatalogStub
import EventLoop
import PureTestSupport
import Testing
import TestSupport

/// Issue 19, item 6: a request still waiting for the upstream when the shutdown grace period
/// ends gets a 503 problem with `Connection: close`, not an empty reply, and the shutdown says so.
@Suite(.serialized) struct GraceEndTests {
    @Test func aRequestHeldAtTheUpstreamIsAnswered503WhenTheGraceEnds() async throws {
        let stubGroup = try EventLoopGroup(loopCount: 1)
        defer { stubGroup.shutdown() }
        let stub = loopbackStub(group: stubGroup)
        let stubPort = try await stub.start()
        var configuration = baseConfiguration(stubPort: stubPort)
        configuration.logLevel = "warn"
        // The load must still be waiting when the grace period ends: on a loaded host the
        // default attempt timeout and deadline (1 s, 3 s) could pass first and answer 504
        // before the stop cuts it short.
        configuration.service.retry.attemptTimeout = .seconds(60)
        configuration.service.requestDeadline = .seconds(60)
        let log = LogLines()
        let app = try await Application.start(configuration: configuration, logDestination: log.destination)

        stub.pause(route: .product)
        let client = try await RawClient.connect(port: app.port)
        defer { client.close() }
        try await client.sendRequest("/products/p41", headers: [("X-Request-ID", "cut-1")])
        await eventually(.live) { stub.pausedRequests >= 1 }
        await app.stop()
        let answer = try await client.readResponse()
        stub.resume()
        await stub.shutdown()

        #expect(answer.status == 503)
        #expect(answer.header("Connection") == "close")
        #expect(answer.header("Content-Type") == "application/problem+json")
        #expect(answer.header("X-Request-ID") == "cut-1")
        #expect(answer.text.contains(#""status":503"#))
        let stopped = log.objects.first { $0["msg"] as? String == "stopped" }
        #expect(stopped?["cutShort"] as? String == "1")
        #expect(log.objects.contains { $0["level"] as? String == "warn" && ($0["msg"] as? String ?? "").contains("cut short") })
        let line = log.requests(status: 503).first
        #expect(line?["requestId"] as? String == "cut-1")
        #expect(line?["answeredBy"] as? String == "shutdown")
        #expect(log.objects.allSatisfy { $0["status"] as? Int != 499 })
    }
}
