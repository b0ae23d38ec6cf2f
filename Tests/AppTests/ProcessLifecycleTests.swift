import EventLoop
import Foundation
import HTTP1
import HTTPClient
import Locking
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
import TestSupport
#endif

/// The executable as an operator runs it: start-up validation, SIGTERM under load, exit codes.
@Suite(.serialized) struct ProcessLifecycleTests {
    @Test func aBadSettingStopsStartUpWithItsNameAndExitCode2() throws {
        let finished = try FinishedProcess.run(environment: ["PORT": "not-a-port"])
        #expect(finished.status == 2)
        #expect(finished.standardError.contains("PORT"))
    }

    @Test func versionAndHelpAnswerWithoutStarting() throws {
        for (argument, expected) in [("--version", "product-details "), ("--help", "CACHE_TTL_SECONDS")] {
            let finished = try FinishedProcess.run(arguments: [argument], environment: nil)
            #expect(finished.status == 0)
            #expect(finished.standardOutput.contains(expected))
        }
    }

    /// SIGTERM while 64 connections keep the service busy: every request it accepted gets a
    /// complete answer, new connections are refused, and it exits 0 within the grace period.
    /// Every answer must be a page, so no load may be shed: 64 misses at once on a cold debug
    /// build, its demo catalog on the same loops, are more than the upstream limits start with.
    @Test func sigtermUnderLoadAnswersEveryAcceptedRequestAndExitsZero() async throws {
        let service = try ServiceProcess(environment: ["SHUTDOWN_GRACE_SECONDS": "5", "LOG_LEVEL": "warn", "UPSTREAM_LIMIT": "off"])
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        var configuration = HTTPClientConfiguration()
        configuration.maxConnectionsPerPool = 64
        let client = HTTPClient(group: group, configuration: configuration)
        let origin = Origin(host: "127.0.0.1", port: service.port)
        let tally = LoadTally()

        let workers = (0..<64).map { worker in
            Task {
                var index = worker
                while !Task.isCancelled {
                    index += 64
                    do throws(HTTPClientError) {
                        let response = try await client.get(origin, path: "/products/p\(index % 5000 + 1)", timeout: .seconds(10))
                        if response.status.code == 200 {
                            tally.withLock { $0.answered += 1 }
                        } else {
                            tally.withLock { $0.other.append("status \(response.status.code)") }
                        }
                    } catch {
                        switch error.code {
                        case .connectFailed, .connectTimeout:
                            // Not accepted: refused, or still in a closing listener's backlog.
                            tally.withLock { $0.refused += 1 }
                            return
                        case .cancelled:
                            // The test stopped this worker.
                            return
                        case .connectionReset where error.detail.contains("mid-answer"):
                            tally.withLock { $0.truncated += 1 }
                        case .connectionReset:
                            // Closed before any byte of an answer: the request was not accepted.
                            continue
                        default:
                            tally.withLock { $0.other.append(error.description) }
                        }
                    }
                }
            }
        }
        // Let the load run until plenty of answers have come back.
        let busy = ContinuousClock.now + .seconds(30)
        while tally.withLock({ $0.answered }) < 2_000, ContinuousClock.now < busy { await Task.yield() }
        service.signal(SIGTERM)
        let exit = service.waitForExit(seconds: 15)
        for worker in workers { worker.cancel() }
        for worker in workers { _ = await worker.result }
        await client.shutdown()

        let result = tally.withLock { $0 }
        #expect(exit == 0, "log: \(service.log)")
        #expect(result.answered >= 2_000)
        #expect(result.truncated == 0)
        #expect(result.other.isEmpty, "\(result.other.prefix(5))")
        // After the listeners closed, new connections are refused.
        await #expect(throws: HTTPClientError.self) {
            _ = try await HTTPClient(group: group).get(origin, path: "/healthz", timeout: .seconds(2))
        }
    }
}

/// What the load generator saw, from many tasks.
private final class LoadTally: Sendable {
    struct Counts {
        var answered = 0
        var truncated = 0
        var refused = 0
        var other: [String] = []
    }

    private let counts = Locked(Counts())

    func withLock<T>(_ body: (inout Counts) -> T) -> T {
        counts.withLock { body(&$0) }
    }
}

/// Clients that reset their connection while the service writes to them.
@Suite(.serialized) struct PeerResetTests {
    /// A write to a connection the peer has reset raises SIGPIPE, which kills a process that does
    /// not ignore it; the service must shrug and keep serving.
    @Test func clientsResettingMidAnswerDoNotKillTheService() async throws {
        let service = try ServiceProcess(environment: ["LOG_LEVEL": "warn"])
        let ids = (1...100).map { "p\($0)" }.joined(separator: ",")
        for _ in 0..<50 {
            let client = try RawClient(port: service.port)
            try await client.sendRequest("/products?ids=\(ids)")
            // Reset at once, so the service's next write fails.
            client.reset()
        }
        #expect(service.process.isRunning)
        #expect(try await oneShotGet(service.port, "/healthz").status == 200)
        service.signal(SIGTERM)
        #expect(service.waitForExit(seconds: 15) == 0)
    }
}

/// One GET on a connection of its own, which the service closes after answering.
func oneShotGet(_ port: Int, _ path: String) async throws -> TestResponse {
    let client = try RawClient(port: port, readTimeoutSeconds: 10)
    defer { client.close() }
    return try await client.request(path, headers: [("Connection", "close")])
}

/// Readiness as a load balancer sees it during a shutdown delay.
@Suite(.serialized) struct ReadinessDuringShutdownTests {
    @Test func readyzTurns503DuringTheShutdownDelayAndTheProcessStillExitsZero() async throws {
        // The delay is the window for both checks below; under ThreadSanitizer one check through a
        // fresh client thread took long enough that a 2 s window closed before /healthz was asked.
        let service = try ServiceProcess(environment: ["LOG_LEVEL": "warn", "SHUTDOWN_DELAY_SECONDS": "5"])
        #expect(try await oneShotGet(service.port, "/readyz").status == 200)
        service.signal(SIGTERM)
        var sawNotReady = false
        let deadline = Date().addingTimeInterval(10)
        while !sawNotReady, Date() < deadline, service.process.isRunning {
            if let answer = try? await oneShotGet(service.port, "/readyz") {
                sawNotReady = answer.status == 503 && answer.header("Content-Type") == "application/problem+json"
            }
        }
        #expect(sawNotReady)
        // Liveness still answers while draining: the process is healthy, just leaving.
        #expect((try? await oneShotGet(service.port, "/healthz"))?.status == 200)
        #expect(service.waitForExit(seconds: 20) == 0)
    }
}
