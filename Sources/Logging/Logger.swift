#if canImport(Glibc)
import Glibc
#endif
import JSON
import ProductDetails
import Timekeeping

/// One JSON object per line, handed to a `LogWriter` that writes from a thread of its own.
/// Messages are autoclosures so a disabled level costs nothing.
package struct Logger: Sendable {
    package enum Level: Int, Sendable, Comparable {
        case debug, info, warn, error

        package init(_ name: String) {
            switch name {
            case "debug": self = .debug
            case "warn": self = .warn
            case "error": self = .error
            default: self = .info
            }
        }

        /// `"level":"…","msg":` as the line writes it.
        var prefix: StaticString {
            switch self {
            case .debug: #""level":"debug","msg":"#
            case .info: #""level":"info","msg":"#
            case .warn: #""level":"warn","msg":"#
            case .error: #""level":"error","msg":"#
            }
        }

        package static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    package let minimum: Level
    package let writer: LogWriter

    package init(minimum: Level, writer: LogWriter) {
        self.minimum = minimum
        self.writer = writer
    }

    package func log(_ level: Level, _ message: @autoclosure () -> String, _ fields: @autoclosure () -> [(String, String)] = []) {
        guard level >= minimum else { return }
        write(level, message(), fields())
    }

    /// Debug lines give way first when the sink falls behind, like request lines; the others are
    /// kept while there is room.
    private func write(_ level: Level, _ message: String, _ fields: [(String, String)]) {
        writer.append(level == .debug ? .request : .kept) { json in
            json.raw(level.prefix)
            json.string(message)
            Self.close(json: &json, with: fields)
        }
    }

    /// Appends `,"key":"value"` for each field, then ends the object and the line.
    private static func close(json: inout JSONBytesWriter, with fields: [(String, String)]) {
        for (key, value) in fields {
            json.raw(",")
            json.string(key)
            json.raw(":")
            json.string(value)
        }
        json.raw("}\n")
    }

    /// Whether request lines are written (`info` or `debug`).
    package var logsRequests: Bool { minimum <= .info }

    /// The one line per answered request; `level` `warn` for a 5xx (kept like other warn lines
    /// when the sink falls behind), with `traceId` (and `loadTraceId` for a request that joined
    /// another's load) and `fields` saying more. Its field names are literals and its numbers are
    /// written as digits: nothing is formatted through `String`.
    package func request(
        method: String, route: String, status: Int, duration: Duration, cache: String, encoding: String,
        upstreamAttempts: Int, requestID: String,
        trace: TraceContext? = nil, loadTraceID: String? = nil, level: Level = .info, fields: [(String, String)] = []
    ) {
        guard level >= minimum else { return }
        let microseconds = Int(duration.wholeMicroseconds)
        writer.append(level > .info ? .kept : .request) { json in
            json.raw(level.prefix)
            json.raw(#""request","method":"#)
            json.string(method)
            json.raw(#","route":"#)
            json.string(route)
            json.raw(#","status":"#)
            json.int(status)
            json.raw(#","durationMs":"#)
            json.fixedPoint(microseconds, decimals: 3)
            json.raw(#","cache":"#)
            json.string(cache)
            json.raw(#","encoding":"#)
            json.string(encoding)
            json.raw(#","upstreamAttempts":"#)
            json.int(upstreamAttempts)
            json.raw(#","requestId":"#)
            json.string(requestID)
            if let trace {
                json.raw(#","traceId":"#)
                trace.writeTraceID(into: &json)
            }
            if let loadTraceID {
                json.raw(#","loadTraceId":"#)
                json.string(loadTraceID)
            }
            Self.close(json: &json, with: fields)
        }
    }

    package func info(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> [(String, String)] = []) {
        log(.info, message(), fields())
    }

    package func warn(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> [(String, String)] = []) {
        log(.warn, message(), fields())
    }

    /// Start-up and shutdown lines (where the service listens, demo mode, signals): printed at
    /// every level but `error`, because operators and tests need them even with request logs off.
    package func lifecycle(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> [(String, String)] = []) {
        guard minimum < .error else { return }
        write(.info, message(), fields())
    }

    package func error(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> [(String, String)] = []) {
        log(.error, message(), fields())
    }

    /// Writes a plain line to standard error at once (start-up failures, before or without the
    /// writer thread).
    package static func printError(_ text: String) {
        _ = LogDestination.descriptor(2).write(Array((text + "\n").utf8))
    }
}
