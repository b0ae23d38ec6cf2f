#if canImport(Glibc)
import Glibc
#endif

/// Makes glibc's per-thread cache of freed blocks (tcache) deep enough for a loop thread.
///
/// By default glibc keeps at most 7 freed blocks of each size class per thread; every further
/// `free` and the `malloc` that follows take the locked arena path. An uncached page allocates
/// about a hundred blocks of a few recurring sizes and dozens of pages are in flight on one loop,
/// so the default cache overflows all the time: a cache of 128 served uncached pages 1.05x faster
/// (`bench/duel.py`, miss; 1,000 did no better). Tunables are read only when a program starts, so
/// the service sets the variable and re-executes itself once, before anything else runs. An
/// operator's own `glibc.malloc.tcache_count` is kept as it is.
public enum AllocatorTuning {
    static let tunable = "glibc.malloc.tcache_count"
    static let tcacheCount = 128

    /// The `GLIBC_TUNABLES` value to run with, or nil when `current` already sets the cache size.
    static func tunables(amending current: String?) -> String? {
        let setting = "\(tunable)=\(tcacheCount)"
        guard let current, !current.isEmpty else { return setting }
        let alreadySet = current.split(separator: ":").contains { $0.hasPrefix("\(tunable)=") }
        return alreadySet ? nil : current + ":" + setting
    }

    /// Re-executes the running program with the tunable set; returns only when that is not needed
    /// or not possible (no `/proc`), and then the program runs with glibc's defaults.
    public static func applyByReexecuting() {
        #if canImport(Glibc)
        let current = getenv("GLIBC_TUNABLES").map { String(cString: $0) }
        guard let wanted = tunables(amending: current) else { return }
        setenv("GLIBC_TUNABLES", wanted, 1)
        // By its real path: a process exec'd as /proc/self/exe is named "exe" in ps and top.
        execv(executablePath() ?? "/proc/self/exe", CommandLine.unsafeArgv)
        if let current {
            setenv("GLIBC_TUNABLES", current, 1)
        } else {
            unsetenv("GLIBC_TUNABLES")
        }
        #endif
    }

    #if canImport(Glibc)
    private static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // A binary replaced since it started reads "<path> (deleted)": only the link still runs it.
        return path.hasSuffix(" (deleted)") ? nil : path
    }
    #endif
}
