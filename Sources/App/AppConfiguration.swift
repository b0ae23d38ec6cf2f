import EventLoop
import HTTPServer

/// Everything the service reads from its environment, validated.
public struct AppConfiguration: Sendable {
    public var server = ServerConfiguration()
    public var loops = EventLoopGroup.coreCount
    public var shutdownGrace: Duration = .seconds(10)
    public var logLevel = "info"
    /// Every setting with its default, for `--help` and the start-up log.
    public private(set) var settings: [SettingDescription] = []
    /// The values in effect, secrets masked, for the start-up log.
    public private(set) var effective: [(String, String)] = []

    public init() {}

    /// Reads and validates the environment; throws the first bad value.
    public static func fromEnvironment(_ environment: [String: String]) throws(ConfigurationError) -> AppConfiguration {
        var reader = EnvironmentReader(environment)
        var config = AppConfiguration()
        config.server.host = reader.string("HOST", default: "0.0.0.0", "address to listen on")
        config.server.port = try reader.int("PORT", default: 8080, in: 0...65535, "TCP port (0 picks a free one)")
        config.loops = try reader.int("LOOPS", default: EventLoopGroup.coreCount, in: 1...256, "event loop threads")
        config.server.maxConnections = try reader.int("MAX_CONNECTIONS", default: 10_000, in: 1...1_000_000, "open connections beyond which new ones are closed")
        config.server.limits.maxRequestLineBytes = try reader.int("MAX_REQUEST_LINE_BYTES", default: 8192, in: 64...1 << 20, "longest request line (else 414)")
        config.server.limits.maxHeaderBytes = try reader.int("MAX_HEADER_BYTES", default: 32768, in: 256...1 << 24, "largest header section (else 431)")
        config.server.limits.maxHeaderCount = try reader.int("MAX_HEADER_COUNT", default: 100, in: 1...10_000, "most header fields (else 431)")
        config.server.limits.maxBodyBytes = try reader.int("MAX_BODY_BYTES", default: 1 << 20, in: 0...1 << 30, "largest request body (else 413)")
        config.server.requestReadTimeout = .milliseconds(try reader.int("REQUEST_READ_TIMEOUT_MS", default: 10_000, in: 1...3_600_000, "time to receive a request's head and body (else 408)"))
        config.server.idleTimeout = .milliseconds(try reader.int("IDLE_TIMEOUT_MS", default: 60_000, in: 1...3_600_000, "idle keep-alive connection lifetime"))
        config.shutdownGrace = .seconds(try reader.int("SHUTDOWN_GRACE_SECONDS", default: 10, in: 0...3600, "time in-flight requests get on SIGTERM"))
        config.logLevel = try reader.choice("LOG_LEVEL", default: "info", among: ["debug", "info", "warn", "error"], "log verbosity")
        config.settings = reader.described
        config.effective = reader.described.map { setting in
            let value = environment[setting.name] ?? setting.defaultValue
            return (setting.name, setting.secret && !value.isEmpty ? "***" : value)
        }
        return config
    }

    /// `--help` text: every setting with its default.
    public static func helpText() -> String {
        let config = (try? fromEnvironment([:])) ?? AppConfiguration()
        var lines = ["product-details: product detail pages over HTTP/1.1", "", "Settings (environment variables):"]
        for setting in config.settings {
            let name = setting.name.padding(toLength: 26)
            let fallback = setting.defaultValue.isEmpty ? "(unset)" : setting.defaultValue
            lines.append("  \(name) \(setting.help); default \(fallback)")
        }
        return lines.joined(separator: "\n")
    }
}

extension String {
    func padding(toLength length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }
}
