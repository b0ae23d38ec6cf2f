#if canImport(Glibc)
import Glibc
#endif

/// Whether glibc runs with a per-thread cache of freed blocks (tcache) deep enough for a loop
/// thread, as the deployment files and our own tools set it.
///
/// By default glibc keeps at most 7 freed blocks of each size class per thread; every further
/// `free` and the `malloc` that follows take the locked arena path. An uncached page allocates
/// many blocks of a few recurring sizes, with dozens of pages in flight on one loop, so the
/// default cache overflows all the time (bench/HISTORY.md has the measurement). glibc reads
/// `GLIBC_TUNABLES` only when a program starts, so the setting belongs where the program is
/// started: the Dockerfile's `ENV`, compose.yaml, `make run` and the benchmark scripts. The
/// service never re-executes itself to set it: under file capabilities or set-user-ID glibc runs
/// in secure-execution mode and drops the variable, and a re-exec would never see it survive.
package enum AllocatorTuning {
    /// The recommended setting, as `GLIBC_TUNABLES` carries it.
    package static let recommended = "glibc.malloc.tcache_count=128"
    static let tunable = "glibc.malloc.tcache_count"

    /// What the start-up line says: the cache size in effect, or that glibc's default is.
    /// - Parameters:
    ///   - tunables: `GLIBC_TUNABLES` as the running process sees it.
    ///   - secureExecution: whether the process runs in glibc's secure-execution mode (`AT_SECURE`),
    ///     where glibc ignores such tunables.
    static func describe(tunables: String?, secureExecution: Bool) -> String {
        let setting = tunables?.split(separator: ":").last { $0.hasPrefix("\(tunable)=") }
        guard let setting, !secureExecution else {
            let why = secureExecution && setting != nil ? "ignored in secure-execution mode" : "not set"
            return "glibc default tcache (\(tunable) \(why); recommended GLIBC_TUNABLES=\(recommended))"
        }
        return String(setting)
    }

    /// The description for this process.
    package static var current: String {
        #if canImport(Glibc)
        let tunables = getenv("GLIBC_TUNABLES").map { String(cString: $0) }
        return describe(tunables: tunables, secureExecution: secureExecution)
        #else
        return "not glibc"
        #endif
    }

    #if canImport(Glibc)
    /// `AT_SECURE` from the auxiliary vector the kernel gave the process (`/proc/self/auxv`:
    /// pairs of machine words, type then value, ending with type 0).
    static var secureExecution: Bool {
        let descriptor = open("/proc/self/auxv", O_RDONLY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var words = [UInt](repeating: 0, count: 128)
        let count = words.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return false }
        let atSecure: UInt = 23
        for pair in stride(from: 0, to: count / MemoryLayout<UInt>.stride - 1, by: 2) {
            if words[pair] == 0 { break }
            if words[pair] == atSecure { return words[pair + 1] != 0 }
        }
        return false
    }
    #endif
}
