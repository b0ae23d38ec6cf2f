import Foundation
import Testing

@testable import App

@Suite("Allocator tuning")
struct AllocatorTuningTests {
    @Test func theCacheSizeIsAddedToWhateverTunablesTheOperatorSet() {
        #expect(AllocatorTuning.tunables(amending: nil) == "glibc.malloc.tcache_count=128")
        #expect(AllocatorTuning.tunables(amending: "") == "glibc.malloc.tcache_count=128")
        #expect(AllocatorTuning.tunables(amending: "glibc.malloc.check=3")
            == "glibc.malloc.check=3:glibc.malloc.tcache_count=128")
    }

    @Test func anOperatorsOwnCacheSizeIsKept() {
        #expect(AllocatorTuning.tunables(amending: "glibc.malloc.tcache_count=0") == nil)
        #expect(AllocatorTuning.tunables(amending: "glibc.malloc.check=3:glibc.malloc.tcache_count=7") == nil)
    }

    /// The executable re-executes itself with the tunable (glibc reads it only at start-up), in
    /// place: the process id the supervisor started is the one that serves and exits on SIGTERM.
    @Test func theRunningServiceHasTheTunableAndKeepsItsProcessIDAndName() async throws {
        let service = try ServiceProcess(environment: ["LOG_LEVEL": "warn", "GLIBC_TUNABLES": "glibc.malloc.check=0"])
        let environment = try String(
            contentsOfFile: "/proc/\(service.process.processIdentifier)/environ", encoding: .utf8)
        // glibc parses the variable in place at start-up (its ':' may read as NUL here).
        #expect(environment.contains("GLIBC_TUNABLES=glibc.malloc.check=0"))
        #expect(environment.contains("glibc.malloc.tcache_count=128"))
        // Re-executed by its path, not as /proc/self/exe, so ps and top still name it.
        let name = try String(contentsOfFile: "/proc/\(service.process.processIdentifier)/comm", encoding: .utf8)
        #expect(name == "product-details\n")
        #expect(try await oneShotGet(service.port, "/healthz").status == 200)
        service.signal(SIGTERM)
        #expect(service.waitForExit(seconds: 15) == 0)
    }
}
