/// Where the stub listens, which catalog it serves, the faults it injects by default, and how
/// many workers each route has.
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
    /// Workers of each served route (`STUB_WORKERS`): a request holds one for `serviceTime`,
    /// beyond them it waits in the route's FIFO queue, and it keeps its turn and its worker's
    /// whole time when its caller leaves, as a thread-pool backend does (``WorkerPool``). 0, the
    /// default, is no limit.
    package var workersPerRoute = 0
    /// How long each request holds one of its route's workers (`STUB_SERVICE_MS`), after its
    /// `latencyMs` and slow-first delays, before its answer. Zero, the default, with no worker
    /// limit: no workers at all, requests answered as before.
    package var serviceTime: Duration = .zero

    package static let maxCatalogSize = 100_000_000
    package static let maxWorkersPerRoute = 100_000

    package init() {}

    /// Reads `HOST`, `PORT`, `CATALOG_SIZE`, `STUB_SEED` and the `STUB_*` fault defaults
    /// (`STUB_LATENCY_MS`, `STUB_ERROR_RATE`, `STUB_ERROR_STATUS`, `STUB_RETRY_AFTER`,
    /// `STUB_HANG`, `STUB_RESET`, `STUB_MALFORMED`, `STUB_OVERSIZED`, `STUB_OVERSIZED_BYTES`,
    /// `STUB_SLOW_FIRST_EVERY`, `STUB_SLOW_FIRST_MS`) and the workers (`STUB_WORKERS` per route,
    /// 0 = no limit; `STUB_SERVICE_MS`, each request's hold on one, 0…600000; see
    /// `workersPerRoute`). A catalog of any size is free: products are computed when asked.
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
        if let text = value("STUB_WORKERS") {
            guard let workers = Int(text.trimmingSpaces), (0...maxWorkersPerRoute).contains(workers) else {
                throw StubConfigurationError(variable: "STUB_WORKERS", message: "must be an integer from 0 (no limit) to \(maxWorkersPerRoute), got \"\(text)\"")
            }
            configuration.workersPerRoute = workers
        }
        if let text = value("STUB_SERVICE_MS") {
            guard let ms = Int(text.trimmingSpaces), (0...FaultSetting.maxLatencyMs).contains(ms) else {
                throw StubConfigurationError(variable: "STUB_SERVICE_MS", message: "must be an integer number of milliseconds from 0 to \(FaultSetting.maxLatencyMs), got \"\(text)\"")
            }
            configuration.serviceTime = .milliseconds(ms)
        }
        do {
            configuration.defaultFaults = try FaultPlan.fromEnvironment(environment)
        } catch {
            throw StubConfigurationError(variable: error.source, message: "must be \(error.expectation), got \"\(error.given)\"")
        }
        return configuration
    }
}

/// An environment variable with a value the stub cannot use.
package struct StubConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    package let variable: String
    package let message: String

    package init(variable: String, message: String) {
        self.variable = variable
        self.message = message
    }

    package var description: String { "\(variable) \(message)" }
}

/// Leading and trailing spaces and tabs removed, as HTTP field values and hand-typed
/// environment values may carry them.
extension String {
    var trimmingSpaces: Substring {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return slice
    }
}
