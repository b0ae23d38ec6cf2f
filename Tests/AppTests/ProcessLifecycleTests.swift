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
        let process = Process()
        process.executableURL = ServiceProcess.executable
        process.environment = ["PORT": "not-a-port"]
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = Pipe()
        try process.run()
        process.waitUntilExit()
        let message = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 2)
        #expect(message.contains("PORT"))
    }

    @Test func versionAndHelpAnswerWithoutStarting() throws {
        for (argument, expected) in [("--version", "product-details "), ("--help", "CACHE_TTL_SECONDS")] {
            let process = Process()
            process.executableURL = ServiceProcess.executable
            process.arguments = [argument]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            process.waitUntilExit()
            let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationStatus == 0)
            #expect(text.contains(expected))
        }
    }

    /// SIGTERM while 64 connections keep the service busy: every request it accepted gets a
    /// complete answer, new connections are refused, and it exits 0 within the grace period.
    @Test func sigtermUnderLoadAnswersEveryAcceptedRequestAndExitsZero() async throws {
        let service = try ServiceProcess(environment: ["SHUTDOWN_GRACE_SECONDS": "5", "LOG_LEVEL": "warn"])
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        var configuration = HTTPClientConfiguration()
        configuration.maxConnectionsPerOrigin = 64
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
    @Test func clientsResettingMidAnswerDoNotKillTheService() throws {
        let service = try ServiceProcess(environment: ["LOG_LEVEL": "warn"])
        let ids = (1...100).map { "p\($0)" }.joined(separator: ",")
        for _ in 0..<50 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(service.port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            #expect(connected == 0)
            let request = Array("GET /products?ids=\(ids) HTTP/1.1\r\nHost: t\r\n\r\n".utf8)
            _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            // Linger 0: close sends RST at once, so the service's next write fails.
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            Glibc.close(fd)
        }
        #expect(service.process.isRunning)
        let health = try HealthProbe.get(port: service.port, path: "/healthz")
        #expect(health.hasPrefix("HTTP/1.1 200"))
        service.signal(SIGTERM)
        #expect(service.waitForExit(seconds: 15) == 0)
    }
}

/// A blocking one-shot GET for process tests.
enum HealthProbe {
    static func get(port: Int, path: String) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { Glibc.close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw ServiceProcessError.didNotStart("connect failed: \(errno)") }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            answer.append(contentsOf: buffer[..<count])
        }
        return String(decoding: answer, as: UTF8.self)
    }
}

/// Readiness as a load balancer sees it during a shutdown delay.
@Suite(.serialized) struct ReadinessDuringShutdownTests {
    @Test func readyzTurns503DuringTheShutdownDelayAndTheProcessStillExitsZero() throws {
        let service = try ServiceProcess(environment: ["LOG_LEVEL": "warn", "SHUTDOWN_DELAY_SECONDS": "2"])
        #expect(try HealthProbe.get(port: service.port, path: "/readyz").hasPrefix("HTTP/1.1 200"))
        service.signal(SIGTERM)
        var sawNotReady = false
        let deadline = Date().addingTimeInterval(10)
        while !sawNotReady, Date() < deadline, service.process.isRunning {
            let answer = (try? HealthProbe.get(port: service.port, path: "/readyz")) ?? ""
            sawNotReady = answer.hasPrefix("HTTP/1.1 503") && answer.contains("application/problem+json")
        }
        #expect(sawNotReady)
        // Liveness still answers while draining: the process is healthy, just leaving.
        #expect((try? HealthProbe.get(port: service.port, path: "/healthz"))?.hasPrefix("HTTP/1.1 200") == true)
        #expect(service.waitForExit(seconds: 20) == 0)
    }
}
