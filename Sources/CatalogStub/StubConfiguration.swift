/// Where the stub listens, which catalog it serves, and the faults it injects by default.
package struct StubConfiguration: Sendable, Equatable {
    package var host = "127.0.0.1"
    package var port = 8081
    package var catalogSize = 10_000
    /// Client connections polled edge-triggered (see ServerConfiguration.edgeTriggeredPolling).
    package var edgeTriggeredPolling = true
    /// Seeds the catalog and the error-rate sequences: one seed, one behaviour.
    package var seed: UInt64 = 42
    /// Faults applied to every request that neither a header nor a control plan overrides.
    package var defaultFaults = FaultPlan()
    /// How long `shutdown` lets requests in progress finish before closing their connections.
    package var shutdownGrace: Duration = .zero

    package static let maxCatalogSize = 100_000_000

    package init() {}

    /// Reads `HOST`, `PORT`, `CATALOG_SIZE`, `STUB_SEED` and the `STUB_*` fault defaults
    /// (`STUB_LATENCY_MS`, `STUB_ERROR_RATE`, `STUB_ERROR_STATUS`, `STUB_RETRY_AFTER`,
    /// `STUB_HANG`, `STUB_RESET`, `STUB_MALFORMED`, `STUB_OVERSIZED`, `STUB_OVERSIZED_BYTES`,
    /// `STUB_SLOW_FIRST_EVERY`, `STUB_SLOW_FIRST_MS`).
    /// Unset or empty variables keep their defaults; a bad value throws, naming the variable.
    ///
    /// A process that embeds the stub next to its own server (demo mode) shares `HOST`/`PORT`
    /// with it: set `host` and `port` (0 for an ephemeral port) after calling this.
    package static func fromEnvironment(_ environment: [String: String]) throws(StubConfigurationError) -> StubConfiguration {
        var configuration = StubConfiguration()
        func value(_ name: String) -> String? {
            guard let text = environment[name], !text.isEmpty else { return nil }
            return text
        }
        if let host = value("HOST") {
            configuration.host = host
        }
        if let text = value("PORT") {
            guard let port = Int(text.trimmingSpaces), (0...65_535).contains(port) else {
                throw StubConfigurationError(variable: "PORT", message: "must be a port from 0 to 65535, got \"\(text)\"")
            }
            configuration.port = port
        }
        if let text = value("CATALOG_SIZE") {
            guard let size = Int(text.trimmingSpaces), (1...maxCatalogSize).contains(size) else {
                throw StubConfigurationError(variable: "CATALOG_SIZE", message: "must be an integer from 1 to \(maxCatalogSize), got \"\(text)\"")
            }
            configuration.catalogSize = size
        }
        if let text = value("STUB_SEED") {
            guard let seed = UInt64(text.trimmingSpaces) else {
                throw StubConfigurationError(variable: "STUB_SEED", message: "must be an unsigned 64-bit integer, got \"\(text)\"")
            }
            configuration.seed = seed
        }
        do {
            configuration.defaultFaults = try FaultPlan.fromEnvironment(environment)
        } catch {
            throw StubConfigurationError(variable: error.source, message: "must be \(error.expectation), got \"\(error.given)\"")
        }
        return configuration
    }
}
