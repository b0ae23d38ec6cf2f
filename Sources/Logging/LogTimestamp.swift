#if canImport(Glibc)
import Glibc
#endif

/// A wall-clock instant as the log writes it: whole seconds since the epoch and milliseconds.
struct LogInstant: Sendable, Equatable {
    var seconds: Int
    var milliseconds: Int

    /// Now, from the real-time clock (a vDSO call, no system call).
    static func now() -> LogInstant {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return LogInstant(seconds: Int(now.tv_sec), milliseconds: Int(now.tv_nsec) / 1_000_000)
    }
}

/// The RFC 3339 UTC text of the last instant asked for (`2026-12-04T16:03:37.123Z`), kept so
/// that a line written in the same second only rewrites the three millisecond digits, and one in
/// the same millisecond rewrites nothing: formatting the date is the dearest part of a line.
struct LogTimestamp {
    static let length = 24
    private(set) var text = [UInt8](repeating: UInt8(ascii: "0"), count: LogTimestamp.length)
    private var second = Int.min
    private var millisecond = -1

    /// The text of `instant`, rewritten only as far as it changed.
    mutating func text(for instant: LogInstant) -> [UInt8] {
        if instant.seconds != second {
            formatSecond(instant.seconds)
            second = instant.seconds
            millisecond = -1
        }
        if instant.milliseconds != millisecond {
            let value = instant.milliseconds
            text[20] = UInt8(ascii: "0") + UInt8(value / 100)
            text[21] = UInt8(ascii: "0") + UInt8(value / 10 % 10)
            text[22] = UInt8(ascii: "0") + UInt8(value % 10)
            millisecond = value
        }
        return text
    }

    private mutating func formatSecond(_ seconds: Int) {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func put(_ value: Int32, at offset: Int, width: Int) {
            var remaining = Int(value)
            for index in stride(from: offset + width - 1, through: offset, by: -1) {
                text[index] = UInt8(ascii: "0") + UInt8(remaining % 10)
                remaining /= 10
            }
        }
        put(parts.tm_year + 1900, at: 0, width: 4)
        text[4] = UInt8(ascii: "-")
        put(parts.tm_mon + 1, at: 5, width: 2)
        text[7] = UInt8(ascii: "-")
        put(parts.tm_mday, at: 8, width: 2)
        text[10] = UInt8(ascii: "T")
        put(parts.tm_hour, at: 11, width: 2)
        text[13] = UInt8(ascii: ":")
        put(parts.tm_min, at: 14, width: 2)
        text[16] = UInt8(ascii: ":")
        put(parts.tm_sec, at: 17, width: 2)
        text[19] = UInt8(ascii: ".")
        text[23] = UInt8(ascii: "Z")
    }
}
