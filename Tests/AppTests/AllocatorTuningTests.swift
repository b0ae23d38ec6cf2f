import Foundation
import Testing
import TestSupport

@testable import App

#if canImport(Glibc)
import Glibc
#endif

@Suite("Allocator tuning")
struct AllocatorTuningTests {
    @Test func theStartUpLineNamesTheCacheSizeInEffectOrSaysItIsGlibcsDefault() {
        #expect(AllocatorTuning.describe(tunables: "glibc.malloc.tcache_count=128", secureExecution: false)
            == "glibc.malloc.tcache_count=128")
        #expect(AllocatorTuning.describe(tunables: "glibc.malloc.check=3:glibc.malloc.tcache_count=64", secureExecution: false)
            == "glibc.malloc.tcache_count=64")
        #expect(AllocatorTuning.describe(tunables: nil, secureExecution: false).hasPrefix("glibc default tcache (glibc.malloc.tcache_count not set;"))
        #expect(AllocatorTuning.describe(tunables: "glibc.malloc.check=3", secureExecution: false).contains("not set"))
        #expect(AllocatorTuning.describe(tunables: "glibc.malloc.tcache_count=128", secureExecution: true)
            .contains("ignored in secure-execution mode"))
    }

    /// The service runs as it was started: no re-exec adds the variable behind the operator's back,
    /// and the start-up line says which cache glibc uses.
    @Test(arguments: [nil, "glibc.malloc.tcache_count=128"])
    func theServiceNeverReexecutesAndReportsTheSetting(tunables: String?) async throws {
        var environment = ["LOG_LEVEL": "warn"]
        if let tunables { environment["GLIBC_TUNABLES"] = tunables }
        let service = try ServiceProcess(environment: environment)
        let environ = try String(contentsOfFile: "/proc/\(service.process.processIdentifier)/environ", encoding: .utf8)
        #expect(environ.contains("GLIBC_TUNABLES") == (tunables != nil))
        let listening = try #require(service.log.split(separator: "\n").first { $0.contains(#""msg":"listening""#) })
        if tunables != nil {
            #expect(listening.contains(#""allocator":"glibc.malloc.tcache_count=128""#))
        } else {
            #expect(listening.contains(#""allocator":"glibc default tcache (glibc.malloc.tcache_count not set"#))
        }
        #expect(try await oneShotGet(service.port, "/healthz").status == 200)
        service.signal(SIGTERM)
        #expect(service.waitForExit(seconds: 15) == 0)
    }

    /// The usual way to bind port 80 without root: a copy of the binary with
    /// `cap_net_bind_service`, run by an ordinary user. glibc then runs in secure-execution mode
    /// and drops `GLIBC_TUNABLES`; the service must start all the same (it used to re-execute
    /// itself forever, waiting for the variable to survive).
    @Test(.timeLimit(.minutes(1)))
    func aCopyWithFileCapabilitiesRunByNobodyServes() async throws {
        let setcap = ["/usr/sbin/setcap", "/sbin/setcap"].first { (path: String) in access(path, X_OK) == 0 }
        guard let setcap else { try Test.cancel("setcap is not installed (Debian's libcap2-bin)") }
        guard access("/usr/bin/setpriv", X_OK) == 0 else { try Test.cancel("setpriv is not installed (util-linux)") }
        guard geteuid() == 0 else { try Test.cancel("setting file capabilities and changing user need root") }
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        guard Self.statusField("NoNewPrivs", in: status) == "0" else {
            try Test.cancel("no-new-privileges is set: file capabilities would not be granted")
        }
        guard let bounding = Self.statusField("CapBnd", in: status).flatMap({ UInt64($0, radix: 16) }),
              bounding & Self.netBindService != 0 else {
            try Test.cancel("the capability bounding set lacks cap_net_bind_service")
        }

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pd-caps-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("product-details")
        try FileManager.default.copyItem(at: ServiceProcess.executable, to: copy)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: copy.path)
        let setting = try SpawnedProcess(executable: setcap, arguments: ["cap_net_bind_service=+ep", copy.path])
        guard setting.waitUntilExit() == 0 else {
            try Test.cancel("setcap failed here (a file system without extended attributes?)")
        }

        let service = try ServiceProcess(
            executable: URL(fileURLWithPath: "/usr/bin/setpriv"),
            arguments: ["--reuid=nobody", "--regid=nogroup", "--clear-groups", copy.path],
            environment: ["LOG_LEVEL": "warn", "GLIBC_TUNABLES": AllocatorTuning.recommended])
        let child = try String(contentsOfFile: "/proc/\(service.process.processIdentifier)/status", encoding: .utf8)
        #expect(Self.statusField("Uid", in: child)?.hasPrefix("65534") == true, "runs as nobody")
        let effective = try #require(Self.statusField("CapEff", in: child).flatMap { UInt64($0, radix: 16) })
        #expect(effective & Self.netBindService != 0, "the child really holds cap_net_bind_service")
        #expect(service.log.contains("ignored in secure-execution mode") || service.log.contains("not set"))
        #expect(try await oneShotGet(service.port, "/healthz").status == 200)
        service.signal(SIGTERM)
        #expect(service.waitForExit(seconds: 15) == 0)
    }

    private static let netBindService: UInt64 = 1 << 10

    private static func statusField(_ name: String, in status: String) -> String? {
        status.split(separator: "\n").first { $0.hasPrefix(name + ":") }
            .map { $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces) }
            .map { String($0.split(separator: "\t").first ?? "") }
    }
}
