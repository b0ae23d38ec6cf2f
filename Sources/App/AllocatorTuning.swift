#if canImport(Glibc)
import Glibc
#endif

/// Makes glibc's per-thread cache of freed blocks (tcache) deep enough for a loop thread.
///
/// By default glibc keeps at most 7 freed blocks of each size class per thread; every further
/// `free` and the `malloc` that follows take the locked arena path. An uncached page allocates
/// dozens of buffers of a few recurring sizes and dozens of pages are in flight on one loop, so
/// the default cache overflows all the time: a cache of 128 served uncached pages 1.08x faster
/// (`bench/duel.py`, miss). Tunables are read only when a program starts, so the service sets the
/// variable and re-executes itself once, before anything else runs. An operator's own
/// `glibc.malloc.tcache_count` is kept as it is.
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
        execv("/proc/self/exe", CommandLine.unsafeArgv)
        if let current {
            setenv("GLIBC_TUNABLES", current, 1)
        } else {
            unsetenv("GLIBC_TUNABLES")
        }
        #endif
    }
}
