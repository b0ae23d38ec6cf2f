import Fleet
import EventLoop
import HTTPClient
import Redis
import HTTPServer
import Timekeeping
import ProductDetails

#if canImport(Glibc)
import Glibc
#endif

/// Everything the service reads from its environment, validated.
package struct AppConfiguration: Sendable {
    package var server = ServerConfiguration()
    package var loops = EventLoopGroup.coreCount
    package var shutdownGrace: Duration = .seconds(10)
    /// Time between turning not-ready and closing the listeners on SIGTERM.
    package var shutdownDelay: Duration = .zero
    package var logLevel = "info"
    /// Bytes of log lines held while the sink is slow; beyond it request lines are dropped first.
    package var logBufferBytes = 1 << 20
    /// Upstream base URLs; nil for all three means demo mode (an in-process catalog).
    package var productsURL: String?
    package var reviewsURL: String?
    package var suggestionsURL: String?
    package var client = HTTPClientConfiguration()
    package var service = ServiceSettings()
    /// Bearer token for the admin routes; nil turns them off.
    package var adminToken: String?
    /// The header listing the ids a page shows, for a CDN's purge by key (`Surrogate-Key`,
    /// `Cache-Tag`, `xkey`); nil sends none.
    package var surrogateKeyHeader: String?
    /// Products in the demo catalog.
    package var demoCatalogSize = 10_000
    /// Fleet mode: the Redis the replicas share; nil runs a single node.
    package var redisURL: RedisURL?
    /// The versioned prefix of every key and channel in Redis (`REDIS_KEY_PREFIX`).
    package var redisKeyPrefix = Self.defaultRedisKeyPrefix
    /// Bumped when the stored format changes, here only: the environment's default is this one.
    package static let defaultRedisKeyPrefix = "pd:v6:"
    /// The longest a loop polls without blocking for the reply to a lone Redis command; zero
    /// never does.
    package var redisBusyPoll = RedisCommandConnectionConfiguration().busyPoll
    package var sharedCache = SharedCacheSettings()
    /// A test hook: the loops act as if libuv bypassed the interposed epoll functions, so the
    /// start-up check of edge-triggered polling fails and the service polls level-triggered.
    var epollInterposerBypass: EpollInterposerBypass = []

    /// True when no upstream is configured.
    package var isDemo: Bool { productsURL == nil && reviewsURL == nil && suggestionsURL == nil }
    /// Every setting with its default, for `--help` and the start-up log.
    package private(set) var settings: [SettingDescription] = []
    /// The values in effect, secrets masked, for the start-up log.
    package private(set) var effective: [(String, String)] = []

    package init() {}

    /// Reads and validates the environment; throws the first bad value.
    package static func fromEnvironment(_ environment: [String: String]) throws(ConfigurationError) -> AppConfiguration {
        var reader = EnvironmentReader(environment)
        var config = AppConfiguration()
        config.server.host = reader.string("HOST", default: "0.0.0.0", "address to listen on")
        config.server.port = try reader.int("PORT", default: 8080, in: 0...65535, "TCP port (0 picks a free one)")
        config.loops = try reader.int("LOOPS", default: EventLoopGroup.coreCount, in: 1...256, "event loop threads")
        config.server.maxInFlightRequests = try reader.int("MAX_INFLIGHT_REQUESTS", default: 10_000, in: 1...1_000_000, "requests handled at once; beyond it 503 with Retry-After")
        config.server.maxConnections = try reader.int("MAX_CONNECTIONS", default: 10_000, in: 1...1_000_000, "open connections beyond which new ones are closed")
        config.server.limits.maxRequestLineBytes = try reader.int("MAX_REQUEST_LINE_BYTES", default: 8192, in: 64...1 << 20, "longest request line (else 414)")
        config.server.limits.maxHeaderBytes = try reader.int("MAX_HEADER_BYTES", default: 32768, in: 256...1 << 24, "largest header section (else 431)")
        config.server.limits.maxHeaderCount = try reader.int("MAX_HEADER_COUNT", default: 100, in: 1...10_000, "most header fields (else 431)")
        config.server.limits.maxBodyBytes = try reader.int("MAX_BODY_BYTES", default: 1 << 20, in: 0...1 << 30, "largest request body (else 413)")
        config.server.requestReadTimeout = .milliseconds(try reader.int("REQUEST_READ_TIMEOUT_MS", default: 10_000, in: 1...3_600_000, "time to receive a request's head and body (else 408)"))
        config.server.idleTimeout = .milliseconds(try reader.int("IDLE_TIMEOUT_MS", default: 60_000, in: 1...3_600_000, "idle keep-alive connection lifetime; also the time a client has to take output the server waits on"))
        config.server.edgeTriggeredPolling = try reader.choice(
            "CONNECTION_POLLING", default: "edge", among: ["edge", "level"], "how epoll reports client connections: edge serves them in arrival order") == "edge"
        config.shutdownGrace = .seconds(try reader.int("SHUTDOWN_GRACE_SECONDS", default: 10, in: 0...3600, "time in-flight requests get on SIGTERM"))
        config.shutdownDelay = .seconds(try reader.int("SHUTDOWN_DELAY_SECONDS", default: 0, in: 0...3600, "on SIGTERM, time /readyz answers 503 while still serving, before the listeners close"))
        config.logLevel = try reader.choice("LOG_LEVEL", default: "info", among: ["debug", "info", "warn", "error"], "log verbosity")
        config.logBufferBytes = try reader.int(
            "LOG_BUFFER_BYTES", default: 1 << 20, in: 16_384...(1 << 30),
            "log lines held while standard output is slow; when full, request lines are dropped first (counted)")
        try readUpstreams(&reader, into: &config)
        try readSemantics(&reader, into: &config)
        try readSharedCache(&reader, into: &config)
        config.settings = reader.described
        config.effective = reader.described.map { setting in
            let value = environment[setting.name] ?? setting.defaultValue
            return (setting.name, setting.secret && !value.isEmpty ? "***" : value)
        }
        return config
    }

    private static func readUpstreams(_ reader: inout EnvironmentReader, into config: inout AppConfiguration) throws(ConfigurationError) {
        func validated(_ value: String, named name: String) throws(ConfigurationError) -> String {
            do {
                _ = try Origin(url: value)
            } catch {
                throw ConfigurationError(setting: name, reason: error.detail)
            }
            return value
        }
        // Checked on its own, so a bad UPSTREAM_URL is blamed on UPSTREAM_URL, the variable the
        // operator set, not on the three it stands in for.
        let fallback = try reader.optionalString("UPSTREAM_URL", "base URL of all three upstreams (http only); unset for the demo catalog")
            .map { value throws(ConfigurationError) in try validated(value, named: "UPSTREAM_URL") }
        func url(_ name: String, _ help: String) throws(ConfigurationError) -> String? {
            guard let value = reader.optionalString(name, help + "; defaults to UPSTREAM_URL") else { return fallback }
            return try validated(value, named: name)
        }
        config.productsURL = try url("PRODUCTS_URL", "product upstream")
        config.reviewsURL = try url("REVIEWS_URL", "reviews upstream")
        config.suggestionsURL = try url("SUGGESTIONS_URL", "suggestions upstream")
        if !config.isDemo, config.productsURL == nil || config.reviewsURL == nil || config.suggestionsURL == nil {
            throw ConfigurationError(setting: "UPSTREAM_URL", reason: "set it, or all of PRODUCTS_URL, REVIEWS_URL and SUGGESTIONS_URL")
        }
        config.client.maxConnectionsPerPool = try reader.int("UPSTREAM_MAX_CONNECTIONS", default: 32, in: 1...10_000, "upstream connections per upstream and loop")
        config.client.connectTimeout = .milliseconds(try reader.int("UPSTREAM_CONNECT_TIMEOUT_MS", default: 1000, in: 1...60_000, "upstream connect timeout"))
        config.demoCatalogSize = try reader.int("DEMO_CATALOG_SIZE", default: 10_000, in: 1...1_000_000, "products in the demo catalog")
    }

    private static func readSemantics(_ reader: inout EnvironmentReader, into config: inout AppConfiguration) throws(ConfigurationError) {
        var service = ServiceSettings()
        service.ttl = .seconds(try reader.int("CACHE_TTL_SECONDS", default: 60, in: 0...86_400, "freshness of a cached page; 0 disables caching (loads still coalesce)"))
        service.cacheMaxEntries = try reader.int("CACHE_MAX_ENTRIES", default: 10_000, in: 1...10_000_000, "most cached pages")
        service.cacheMaxBytes = try reader.int("CACHE_MAX_BYTES", default: 64 << 20, in: 1024...(1 << 40), "most bytes of cached pages")
        service.staleIfError = .seconds(try reader.int("STALE_IF_ERROR_SECONDS", default: 300, in: 0...86_400, "how long an expired page may stand in when the upstream fails"))
        service.staleWhileRevalidate = .seconds(try reader.int("STALE_WHILE_REVALIDATE_SECONDS", default: 30, in: 0...86_400, "how long an expired page is served while one refresh runs"))
        service.notFoundTTL = .seconds(try reader.int("NOT_FOUND_TTL_SECONDS", default: 5, in: 0...3600, "how long an upstream 404 is cached"))
        service.gzipMinBytes = try reader.int(
            "GZIP_MIN_BYTES", default: 512, in: 0...(1 << 30), "smallest body sent gzipped; a cached page below it is identity only")
        service.retry.attempts = try reader.int("RETRY_ATTEMPTS", default: 3, in: 1...10, "attempts per upstream call, the first included")
        service.retry.baseDelay = .milliseconds(try reader.int("RETRY_BASE_DELAY_MS", default: 50, in: 0...10_000, "backoff base (full jitter, doubling)"))
        service.retry.maxDelay = .milliseconds(try reader.int("RETRY_MAX_DELAY_MS", default: 1000, in: 0...60_000, "backoff cap, and the longest Retry-After honoured"))
        service.retry.attemptTimeout = .milliseconds(try reader.int("UPSTREAM_TIMEOUT_MS", default: 1000, in: 1...60_000, "time one upstream attempt may take"))
        service.requestDeadline = .milliseconds(try reader.int("REQUEST_DEADLINE_MS", default: 3000, in: 1...120_000, "time a page load may take, retries included (else 504)"))
        service.batchParallelism = try reader.int("BATCH_PARALLELISM", default: 8, in: 1...100, "loads a batch request runs at once")
        service.maxInFlightLoads = try reader.int("MAX_INFLIGHT_LOADS", default: 10_000, in: 1...1_000_000, "distinct loads at once before 503")
        try readGrayFailure(&reader, into: &service)
        config.service = service
        config.adminToken = reader.optionalString("ADMIN_TOKEN", "bearer token for the /cache invalidation routes; unset turns them off", secret: true)
        if let name = reader.optionalString(
            "SURROGATE_KEY_HEADER", "header listing the ids a page shows, for a CDN's purge by key (Surrogate-Key, Cache-Tag, xkey); unset sends none") {
            guard SurrogateKeys.isAllowedHeaderName(name) else {
                throw ConfigurationError(
                    setting: "SURROGATE_KEY_HEADER",
                    reason: "\"\(name)\" is not a header name of 1 to 64 token characters that the service does not already send")
            }
            config.surrogateKeyHeader = name
        }
    }

    /// Breakers, an optional part's grace and hedging: why each default, docs/architecture.md
    /// ("Gray failure").
    private static func readGrayFailure(_ reader: inout EnvironmentReader, into service: inout ServiceSettings) throws(ConfigurationError) {
        let defaults = ServiceSettings.defaultUpstreamBreaker
        let failures = try reader.int(
            "UPSTREAM_BREAKER_FAILURES", default: defaults.failureThreshold, in: 1...1000, "an upstream's failures in a row that open its breaker")
        let percent = try reader.int(
            "UPSTREAM_BREAKER_FAILURE_PERCENT", default: 50, in: 1...100,
            "share of failed calls (of at least UPSTREAM_BREAKER_MIN_CALLS in UPSTREAM_BREAKER_WINDOW_MS) that opens an upstream's breaker")
        let minimumCalls = try reader.int(
            "UPSTREAM_BREAKER_MIN_CALLS", default: defaults.minimumCalls, in: 1...1_000_000, "fewest calls in the window the failure share is judged on")
        let window = try reader.int("UPSTREAM_BREAKER_WINDOW_MS", default: 10_000, in: 1000...600_000, "the sliding window of the failure share")
        let openFor = try reader.int(
            "UPSTREAM_BREAKER_OPEN_MS", default: 5000, in: 100...600_000, "time an open upstream breaker refuses calls before one trial call")
        service.upstreamBreaker = CircuitBreaker.Policy(
            failureThreshold: failures, openFor: .milliseconds(openFor), failureRatio: Double(percent) / 100,
            window: .milliseconds(window), minimumCalls: minimumCalls)
        service.optionalPartGrace = .milliseconds(try reader.int(
            "OPTIONAL_PART_GRACE_MS", default: 100, in: 0...60_000,
            "once the product is here, the longest wait for reviews and suggestions; a page answered without them is completed when they come"))
        let hedging = try reader.choice(
            "HEDGE", default: "on", among: ["on", "off"], "a second product call when the first is slower than the live p95 (bounded by a 10% budget)") == "on"
        let minimumDelay = try reader.int("HEDGE_MIN_DELAY_MS", default: 10, in: 1...60_000, "the shortest hedge delay")
        let maximumDelay = try reader.int("HEDGE_MAX_DELAY_MS", default: 200, in: 1...60_000, "the longest hedge delay")
        guard maximumDelay >= minimumDelay else {
            throw ConfigurationError(setting: "HEDGE_MAX_DELAY_MS", reason: "must be at least HEDGE_MIN_DELAY_MS (\(minimumDelay))")
        }
        service.hedging = hedging ? HedgePolicy(minimumDelay: .milliseconds(minimumDelay), maximumDelay: .milliseconds(maximumDelay)) : nil
        try readAdmission(&reader, into: &service)
    }

    /// The adaptive limits on each upstream's calls in flight: why each default,
    /// docs/architecture.md ("Overload").
    private static func readAdmission(_ reader: inout EnvironmentReader, into service: inout ServiceSettings) throws(ConfigurationError) {
        let adaptive = try reader.choice(
            "UPSTREAM_LIMIT", default: "adaptive", among: ["adaptive", "off"],
            "each upstream's calls in flight limited to what it serves without queueing, learnt from its latencies; loads beyond wait briefly or get 503") == "adaptive"
        let defaults = ConcurrencyLimit.Policy()
        let floor = try reader.int("UPSTREAM_LIMIT_MIN", default: defaults.floor, in: 1...10_000, "the least an upstream's limit may fall to")
        let ceiling = try reader.int("UPSTREAM_LIMIT_MAX", default: defaults.ceiling, in: 1...100_000, "the most an upstream's limit may grow to")
        guard ceiling >= floor else {
            throw ConfigurationError(setting: "UPSTREAM_LIMIT_MAX", reason: "must be at least UPSTREAM_LIMIT_MIN (\(floor))")
        }
        service.admission = adaptive
            ? AdmissionMachine.Policy(limit: ConcurrencyLimit.Policy(floor: floor, ceiling: ceiling, initial: defaults.initial))
            : nil
    }

    private static func readSharedCache(_ reader: inout EnvironmentReader, into config: inout AppConfiguration) throws(ConfigurationError) {
        if let text = reader.optionalString("REDIS_URL", "redis://[[user]:password@]host[:port] shared by the replicas of a fleet (database 0, no TLS); unset runs a single node", secret: true) {
            let url: RedisURL
            do {
                url = try RedisURL(parsing: text)
            } catch {
                throw ConfigurationError(setting: "REDIS_URL", reason: error.detail)
            }
            // Whether REDIS_URL names a cluster is known only once connected, and a cluster has
            // database 0 only: refused here, the same URL cannot start on one Redis and fail on
            // every node of a cluster later.
            guard url.database == 0 else {
                throw ConfigurationError(
                    setting: "REDIS_URL",
                    reason: "the database \(url.database) is not 0: the shared cache uses database 0 only, as a Redis Cluster has no other (leave out '/\(url.database)')")
            }
            config.redisURL = url
        }
        let prefix = reader.string("REDIS_KEY_PREFIX", default: Self.defaultRedisKeyPrefix, "prefix of every Redis key and channel; change the version when the stored format changes")
        // Braces would change the hash tags that keep each product's keys in one cluster slot.
        guard (1...64).contains(prefix.utf8.count),
              prefix.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "{") && $0 != UInt8(ascii: "}") })
        else {
            throw ConfigurationError(setting: "REDIS_KEY_PREFIX", reason: "use 1 to 64 printable ASCII characters without spaces, { or }")
        }
        config.redisKeyPrefix = prefix
        config.redisBusyPoll = .microseconds(try reader.int(
            "REDIS_BUSY_POLL_US", default: Int(RedisCommandConnectionConfiguration().busyPoll.wholeMicroseconds), in: 0...1000,
            "longest a loop polls without sleeping for the reply to a lone Redis command (0: never)"))
        var shared = SharedCacheSettings()
        shared.timeout = .milliseconds(try reader.int("REDIS_TIMEOUT_MS", default: 250, in: 1...10_000, "Redis time a cache miss may spend in all before it loads by itself"))
        shared.leaseDuration = .milliseconds(try reader.int("REDIS_LEASE_MS", default: 1000, in: 100...60_000, "lifetime of a product's load lease unless its holder renews it"))
        shared.breakerFailures = try reader.int("REDIS_BREAKER_FAILURES", default: 5, in: 1...1000, "Redis failures in a row that open the breaker (requests then skip Redis)")
        shared.breakerOpenFor = .milliseconds(try reader.int("REDIS_BREAKER_OPEN_MS", default: 5000, in: 100...600_000, "time the open breaker keeps requests off Redis before one probe"))
        shared.disconnectedFreshness = .milliseconds(try reader.int(
            "REDIS_DISCONNECTED_FRESHNESS_MS", default: 2000, in: 0...600_000,
            "longest a locally cached page counts as fresh while invalidations from the fleet may be missed"))
        config.sharedCache = shared
    }

    /// `--help` text: every setting with its default, the descriptions in one column (as wide as
    /// the longest name needs) and wrapped to fit a terminal of `helpColumns`.
    package static func helpText() -> String {
        let config = (try? fromEnvironment([:])) ?? AppConfiguration()
        var lines = ["product-details: product detail pages over HTTP/1.1", "", "Settings (environment variables):"]
        let nameWidth = config.settings.map(\.name.count).max() ?? 0
        for setting in config.settings {
            let fallback = setting.defaultValue.isEmpty ? "(unset)" : setting.defaultValue
            lines += wrapped(
                "\(setting.help); default \(fallback)", after: "  " + setting.name.padding(toLength: nameWidth) + "  ")
        }
        return lines.joined(separator: "\n")
    }

    static let helpColumns = 100

    /// `text` broken between words into lines of at most ``helpColumns``, the first after
    /// `lead`, the others indented as far.
    private static func wrapped(_ text: String, after lead: String) -> [String] {
        let indent = String(repeating: " ", count: lead.count)
        var lines: [String] = []
        var line = lead
        for word in text.split(separator: " ") {
            if line.count > indent.count, line.count + 1 + word.count > helpColumns {
                lines.append(line)
                line = indent
            }
            line += (line.count > indent.count ? " " : "") + word
        }
        lines.append(line)
        return lines
    }
}

extension String {
    func padding(toLength length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }
}

/// A setting that cannot be used; start-up stops with this message.
package struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    package let setting: String
    package let reason: String

    /// Without a final period: start-up adds ". See --help.", and some reasons (a parser's
    /// detail) come as sentences.
    package var description: String {
        "invalid \(setting): \(reason.hasSuffix(".") ? String(reason.dropLast()) : reason)"
    }
}

/// The process environment as a dictionary.
package enum ProcessEnvironment {
    package static var current: [String: String] {
        var values: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                values[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return values
    }
}
