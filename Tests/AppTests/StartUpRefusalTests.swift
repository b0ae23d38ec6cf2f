import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Start-up as an operator meets it: what the service refuses to start with, and says why.
@Suite(.serialized) struct StartUpRefusalTests {
    @Test(arguments: [["--port", "9000"], ["-V"], ["--bogus"]])
    func anUnknownArgumentPrintsTheUsageAndExits2(_ arguments: [String]) throws {
        let finished = try FinishedProcess.run(arguments: arguments, environment: ["HOST": "127.0.0.1", "PORT": "0"])
        #expect(finished.status == 2)
        #expect(finished.standardError.contains("unknown argument \"\(arguments[0])\""))
        #expect(finished.standardError.contains("usage: product-details"))
        #expect(!finished.standardOutput.contains("listening"))
    }

    /// With `SO_REUSEPORT` on every listener, a second instance used to bind the port as well and
    /// take half the connections.
    @Test func aPortHeldByAnotherProcessStopsStartUpWithExitCode2() throws {
        let first = try ServiceProcess(environment: ["LOG_LEVEL": "warn"])
        let second = try FinishedProcess.run(environment: ["HOST": "127.0.0.1", "PORT": String(first.port), "LOG_LEVEL": "warn"])
        #expect(second.status == 2)
        #expect(second.standardError.contains("PORT"))
        #expect(second.standardError.contains("HOST"))
        #expect(second.standardError.contains("in use by another process"))
        #expect(!second.standardOutput.contains("demo catalog"))
        #expect(first.process.isRunning)
        first.signal(SIGTERM)
        #expect(first.waitForExit(seconds: 15) == 0)
    }

    @Test func aHostNameIsResolved() async throws {
        let service = try ServiceProcess(environment: ["HOST": "localhost", "LOG_LEVEL": "warn"])
        #expect(try await oneShotGet(service.port, "/healthz").status == 200)
        #expect(service.log.contains(#""host":"127.0.0.1""#))
        service.signal(SIGTERM)
        #expect(service.waitForExit(seconds: 15) == 0)
    }

    /// It used to fail with "EINVAL: invalid argument", naming nothing, after the demo catalog
    /// had started.
    @Test(arguments: ["no-such-host.invalid", "not a host"])
    func aHostThatDoesNotResolveIsRefusedByName(_ host: String) throws {
        let finished = try FinishedProcess.run(environment: ["HOST": host, "PORT": "0"])
        #expect(finished.status == 2)
        #expect(finished.standardError.contains("invalid HOST"))
        #expect(finished.standardError.contains(host))
        #expect(!finished.standardOutput.contains("demo catalog"))
    }

    /// A reason that came as a sentence (the Redis URL parser's) used to end in "..".
    @Test(arguments: ["REDIS_URL=foo://x", "REDIS_URL=redis://:pw@127.0.0.1:1/3", "UPSTREAM_URL=ftp://x", "PORT=abc", "LOG_LEVEL=loud"])
    func aStartUpErrorIsOneLineEndingInOnePeriod(_ setting: String) throws {
        let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
        var environment = ["HOST": "127.0.0.1", "PORT": "0"]
        environment[parts[0]] = parts[1]
        let finished = try FinishedProcess.run(environment: environment)
        #expect(finished.status == 2)
        let message = finished.standardError.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(message.hasPrefix("product-details: invalid \(parts[0]): "), "\(message)")
        #expect(message.hasSuffix(". See --help."), "\(message)")
        #expect(!message.contains(".."), "\(message)")
    }

    /// The demo mode's hint used to say `localhost:0`.
    @Test func withPort0TheStartUpHintNamesTheRealPort() throws {
        let service = try ServiceProcess(environment: ["PORT": "0"])
        #expect(service.log.contains("curl localhost:\(service.port)/products/p1"))
        service.signal(SIGTERM)
        #expect(service.waitForExit(seconds: 15) == 0)
    }
}
