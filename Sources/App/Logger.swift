#if canImport(Glibc)
import Glibc
#endif
import HTTPServer

/// One JSON object per line on standard output. Messages are autoclosures so a disabled level
/// costs nothing.
public struct Logger: Sendable {
    public enum Level: Int, Sendable, Comparable {
        case debug, info, warn, error

        public init(_ name: String) {
            switch name {
            case "debug": self = .debug
            case "warn": self = .warn
            case "error": self = .error
            default: self = .info
            }
        }

        var name: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warn: "warn"
            case .error: "error"
            }
        }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public let minimum: Level
    /// Where lines go: standard output, or a test's collector.
    public let sink: @Sendable ([UInt8]) -> Void

    public init(minimum: Level, sink: @escaping @Sendable ([UInt8]) -> Void = { Logger.write($0) }) {
        self.minimum = minimum
        self.sink = sink
    }

    public func log(_ level: Level, _ message: @autoclosure () -> String, _ fields: @autoclosure () -> [(String, String)] = []) {
        guard level >= minimum else { return }
        var line: [UInt8] = []
        line.append(contentsOf: #"{"time":"#.utf8)
        JSONText.appendQuoted(Self.timestamp(), to: &line)
        line.append(contentsOf: #","level":"#.utf8)
        JSONText.appendQuoted(level.name, to: &line)
        line.append(contentsOf: #","msg":"#.utf8)
        JSONText.appendQuoted(message(), to: &line)
        for (key, value) in fields() {
            line.append(UInt8(ascii: ","))
            JSONText.appendQuoted(key, to: &line)
            line.append(UInt8(ascii: ":"))
            JSONText.appendQuoted(value, to: &line)
        }
        line.append(contentsOf: "}\n".utf8)
        sink(line)
    }

    /// Whether request lines are written (`info` or `debug`).
    var logsRequests: Bool { minimum <= .info }

    /// The one line per answered request.
    func request(
        method: String, route: String, status: Int, duration: Duration, cache: String, upstreamAttempts: Int, requestID: String
    ) {
        guard Level.info >= minimum else { return }
        let milliseconds = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        var line: [UInt8] = []
        line.reserveCapacity(256)
        line.append(contentsOf: #"{"time":"#.utf8)
        JSONText.appendQuoted(Self.timestamp(), to: &line)
        line.append(contentsOf: #","level":"info","msg":"request","method":"#.utf8)
        JSONText.appendQuoted(method, to: &line)
        line.append(contentsOf: #","route":"#.utf8)
        JSONText.appendQuoted(route, to: &line)
        line.append(contentsOf: #","status":"#.utf8)
        line.append(contentsOf: String(status).utf8)
        line.append(contentsOf: #","durationMs":"#.utf8)
        line.append(contentsOf: String((milliseconds * 1000).rounded() / 1000).utf8)
        line.append(contentsOf: #","cache":"#.utf8)
        JSONText.appendQuoted(cache, to: &line)
        line.append(contentsOf: #","upstreamAttempts":"#.utf8)
        line.append(contentsOf: String(upstreamAttempts).utf8)
        line.append(contentsOf: #","requestId":"#.utf8)
        JSONText.appendQuoted(requestID, to: &line)
        line.append(contentsOf: "}\n".utf8)
        sink(line)
    }

    public func info(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> [(String, String)] = []) {
        log(.info, message(), fields())
    }

    /// Start-up and shutdown lines (where the service listens, demo mode, signals): printed at
    /// every level but `error`, because operators and tests need them even with request logs off.
    public func lifecycle(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> [(String, String)] = []) {
        guard minimum < .error else { return }
        Logger(minimum: .debug, sink: sink).log(.info, message(), fields())
    }

    public func error(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> [(String, String)] = []) {
        log(.error, message(), fields())
    }

    /// Writes a plain line to standard error (start-up failures, before logging is set up).
    public static func printError(_ text: String) {
        write(Array((text + "\n").utf8), to: 2)
    }

    /// One `write(2)` per line, so lines from different loops never interleave.
    public static func write(_ line: [UInt8], to descriptor: Int32 = 1) {
        line.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }

    /// RFC 3339 UTC with milliseconds.
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))T"
            + "\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2)).\(pad(now.tv_nsec / 1_000_000, 3))Z"
    }
}
