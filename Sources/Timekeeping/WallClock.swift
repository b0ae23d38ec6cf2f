#if canImport(Glibc)
import Glibc
#endif

/// The time of day, shared by every machine of a fleet (as far as their clocks agree), for what
/// one replica stamps and another reads: a shared page's age. Everything that waits or expires
/// inside one process uses a ``TimeSource`` instead, which never jumps.
package protocol WallClock: Sendable {
    /// The time elapsed since the Unix epoch.
    var sinceEpoch: Duration { get }
}

/// The system's real-time clock (a vDSO call, no system call). It can step when the machine's
/// clock is set; its readers clamp what they derive from it.
package struct SystemWallClock: WallClock {
    package init() {}

    package var sinceEpoch: Duration {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return .seconds(now.tv_sec) + .nanoseconds(now.tv_nsec)
    }
}
