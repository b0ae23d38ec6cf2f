#if canImport(Glibc)
import Glibc
#endif

/// The `Date` header value (IMF-fixdate), formatted once per second per loop. Loop-confined.
final class HTTPDateCache {
    private var second: time_t = -1
    private(set) var bytes: [UInt8] = []

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n" for the current second.
    func headerLine() -> [UInt8] {
        let now = time(nil)
        if now != second {
            second = now
            bytes = Array("Date: \(Self.format(now))\r\n".utf8)
        }
        return bytes
    }

    static func format(_ seconds: time_t) -> String {
        var value = seconds
        var parts = tm()
        gmtime_r(&value, &parts)
        func two(_ number: Int32) -> String { number < 10 ? "0\(number)" : "\(number)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
