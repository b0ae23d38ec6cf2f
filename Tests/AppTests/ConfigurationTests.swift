import App
import ProductDetails
import Redis
import Testing
import TestSupport

@Suite("Configuration from the environment")
struct ConfigurationTests {
    @Test func defaultsNeedNoEnvironmentAndMeanDemoMode() throws {
        let configuration = try AppConfiguration.fromEnvironment([:])
        #expect(configuration.server.port == 8080)
        #expect(configuration.server.host == "0.0.0.0")
        #expect(configuration.loops >= 1)
        #expect(configuration.isDemo)
        #expect(configuration.service.ttl == .seconds(60))
        #expect(configuration.adminToken == nil)
        #expect(configuration.server.edgeTriggeredPolling)
    }

    /// A configuration made in code (the tests' harnesses) names the same Redis keys as the
    /// service started with no environment: one default, not two that drift apart.
    @Test func theRedisKeyPrefixDefaultsAlikeInCodeAndFromTheEnvironment() throws {
        #expect(try AppConfiguration.fromEnvironment([:]).redisKeyPrefix == AppConfiguration().redisKeyPrefix)
        #expect(AppConfiguration().redisKeyPrefix == "pd:v6:")
    }

    @Test func theGrayFailureSettingsHaveTheirDefaultsAndAreRead() throws {
        let defaults = try AppConfiguration.fromEnvironment([:]).service
        #expect(defaults.upstreamBreaker == ServiceSettings.defaultUpstreamBreaker)
        #expect(defaults.optionalPartGrace == .milliseconds(100))
        #expect(defaults.hedging == HedgePolicy())
        let set = try AppConfiguration.fromEnvironment([
            "UPSTREAM_BREAKER_FAILURES": "3", "UPSTREAM_BREAKER_FAILURE_PERCENT": "25", "UPSTREAM_BREAKER_MIN_CALLS": "40",
            "UPSTREAM_BREAKER_WINDOW_MS": "30000", "UPSTREAM_BREAKER_OPEN_MS": "2000", "OPTIONAL_PART_GRACE_MS": "0",
            "HEDGE_MIN_DELAY_MS": "5", "HEDGE_MAX_DELAY_MS": "50",
        ]).service
        #expect(set.upstreamBreaker == CircuitBreaker.Policy(
            failureThreshold: 3, openFor: .seconds(2), failureRatio: 0.25, window: .seconds(30), minimumCalls: 40))
        #expect(set.optionalPartGrace == .zero)
        #expect(set.hedging?.minimumDelay == .milliseconds(5) && set.hedging?.maximumDelay == .milliseconds(50))
        #expect(try AppConfiguration.fromEnvironment(["HEDGE": "off"]).service.hedging == nil)
    }

    @Test func theUpstreamLimitsAreAdaptiveByDefaultWithTheirBoundsRead() throws {
        let defaults = try AppConfiguration.fromEnvironment([:]).service
        #expect(defaults.admission == AdmissionMachine.Policy())
        let set = try AppConfiguration.fromEnvironment(["UPSTREAM_LIMIT_MIN": "2", "UPSTREAM_LIMIT_MAX": "64"]).service
        #expect(set.admission?.limit.floor == 2 && set.admission?.limit.ceiling == 64 && set.admission?.limit.initial == 20)
        #expect(try AppConfiguration.fromEnvironment(["UPSTREAM_LIMIT": "off"]).service.admission == nil)
    }

    @Test func connectionPollingCanBeLevelTriggered() throws {
        #expect(try !AppConfiguration.fromEnvironment(["CONNECTION_POLLING": "level"]).server.edgeTriggeredPolling)
        #expect(try AppConfiguration.fromEnvironment(["CONNECTION_POLLING": "Edge"]).server.edgeTriggeredPolling)
    }

    @Test(arguments: [
        (["PORT": "abc"], "PORT"),
        (["PORT": "70000"], "PORT"),
        (["PORT": "-1"], "PORT"),
        (["LOOPS": "0"], "LOOPS"),
        (["MAX_HEADER_BYTES": "12"], "MAX_HEADER_BYTES"),
        (["LOG_LEVEL": "loud"], "LOG_LEVEL"),
        (["CONNECTION_POLLING": "oneshot"], "CONNECTION_POLLING"),
        (["UPSTREAM_URL": "https://catalog"], "UPSTREAM_URL"),
        (["UPSTREAM_URL": "catalog:8081"], "UPSTREAM_URL"),
        (["UPSTREAM_URL": "http://catalog:8081", "REVIEWS_URL": "https://reviews"], "REVIEWS_URL"),
        (["PRODUCTS_URL": "http://catalog:8081"], "UPSTREAM_URL"),
        (["CACHE_TTL_SECONDS": "ten"], "CACHE_TTL_SECONDS"),
        (["RETRY_ATTEMPTS": "0"], "RETRY_ATTEMPTS"),
        (["REQUEST_DEADLINE_MS": "1.5"], "REQUEST_DEADLINE_MS"),
        (["BATCH_PARALLELISM": "1000"], "BATCH_PARALLELISM"),
        (["UPSTREAM_BREAKER_FAILURES": "0"], "UPSTREAM_BREAKER_FAILURES"),
        (["UPSTREAM_BREAKER_FAILURE_PERCENT": "101"], "UPSTREAM_BREAKER_FAILURE_PERCENT"),
        (["UPSTREAM_BREAKER_MIN_CALLS": "many"], "UPSTREAM_BREAKER_MIN_CALLS"),
        (["UPSTREAM_BREAKER_WINDOW_MS": "10"], "UPSTREAM_BREAKER_WINDOW_MS"),
        (["UPSTREAM_BREAKER_OPEN_MS": "-5"], "UPSTREAM_BREAKER_OPEN_MS"),
        (["OPTIONAL_PART_GRACE_MS": "0.5"], "OPTIONAL_PART_GRACE_MS"),
        (["HEDGE": "sometimes"], "HEDGE"),
        (["HEDGE_MIN_DELAY_MS": "0"], "HEDGE_MIN_DELAY_MS"),
        (["HEDGE_MIN_DELAY_MS": "50", "HEDGE_MAX_DELAY_MS": "20"], "HEDGE_MAX_DELAY_MS"),
        (["UPSTREAM_LIMIT": "fixed"], "UPSTREAM_LIMIT"),
        (["UPSTREAM_LIMIT_MIN": "0"], "UPSTREAM_LIMIT_MIN"),
        (["UPSTREAM_LIMIT_MIN": "50", "UPSTREAM_LIMIT_MAX": "20"], "UPSTREAM_LIMIT_MAX"),
        (["REDIS_KEY_PREFIX": "pd:{v3}:"], "REDIS_KEY_PREFIX"),
        (["REDIS_KEY_PREFIX": "pd}"], "REDIS_KEY_PREFIX"),
        (["REDIS_URL": "redis://127.0.0.1:6379/2"], "REDIS_URL"),
        (["REDIS_URL": "redis://:pw@cache.internal/15"], "REDIS_URL"),
    ])
    func aBadValueNamesItsSetting(_ environment: [String: String], _ setting: String) {
        #expect {
            _ = try AppConfiguration.fromEnvironment(environment)
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.setting == setting && error.description.contains(setting)
        }
    }

    /// A database other than 0 is refused above; 0, named or not, is the one used.
    @Test(arguments: ["redis://127.0.0.1:6379", "redis://127.0.0.1:6379/", "redis://127.0.0.1:6379/0"])
    func aRedisURLOnDatabase0IsAccepted(_ text: String) throws {
        let configuration = try AppConfiguration.fromEnvironment(["REDIS_URL": text])
        #expect(configuration.redisURL == RedisURL(host: "127.0.0.1", port: 6379))
    }

    /// The query used to be read as part of the port ("bad port").
    @Test(arguments: ["http://catalog:8081?region=eu", "http://catalog/api?x=1", "http://catalog:8081#top"])
    func aURLWithAQueryIsRefusedForWhatItIs(_ url: String) {
        #expect {
            _ = try AppConfiguration.fromEnvironment(["UPSTREAM_URL": url])
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.setting == "UPSTREAM_URL" && error.reason.contains("query") && !error.reason.contains("bad port")
        }
    }

    @Test func onlyHelpAndVersionAreUnderstoodOnTheCommandLine() {
        #expect(CommandLineAction(arguments: []) == .run)
        #expect(CommandLineAction(arguments: ["--help"]) == .help)
        #expect(CommandLineAction(arguments: ["-h"]) == .help)
        #expect(CommandLineAction(arguments: ["--version"]) == .version)
        #expect(CommandLineAction(arguments: ["--version", "--help"]) == .help)
        #expect(CommandLineAction(arguments: ["--port", "9000"]) == .unknown("--port"))
        #expect(CommandLineAction(arguments: ["-V"]) == .unknown("-V"))
        #expect(CommandLineAction(arguments: ["--help", "--bogus"]) == .unknown("--bogus"))
    }

    @Test func upstreamURLsDefaultToUpstreamURL() throws {
        let configuration = try AppConfiguration.fromEnvironment([
            "UPSTREAM_URL": "http://catalog:8081", "REVIEWS_URL": "http://reviews:9000",
        ])
        #expect(!configuration.isDemo)
        #expect(configuration.productsURL == "http://catalog:8081")
        #expect(configuration.reviewsURL == "http://reviews:9000")
        #expect(configuration.suggestionsURL == "http://catalog:8081")
    }

    @Test func theAdminTokenIsMaskedInTheEffectiveSettings() throws {
        let configuration = try AppConfiguration.fromEnvironment(["ADMIN_TOKEN": "s3cret", "PORT": "9000", "CACHE_TTL_SECONDS": "0"])
        let effective = Dictionary(configuration.effective, uniquingKeysWith: { first, _ in first })
        #expect(effective["ADMIN_TOKEN"] == "***")
        #expect(effective["PORT"] == "9000")
        #expect(configuration.service.ttl == .zero)
        #expect(configuration.adminToken == "s3cret")
    }

    @Test func helpListsEverySettingWithItsDefault() throws {
        let help = AppConfiguration.helpText()
        let configuration = try AppConfiguration.fromEnvironment([:])
        #expect(configuration.settings.count >= 30)
        for setting in configuration.settings {
            #expect(help.contains(setting.name), "\(setting.name) missing from --help")
        }
        #expect(help.contains("PORT") && help.contains("default 8080"))
    }

    /// Every description starts in one column and no line is wider than a terminal: the longest
    /// name used to push its row out of line, and rows ran to 157 columns.
    @Test func helpIsAlignedAndFitsAHundredColumns() throws {
        let lines = AppConfiguration.helpText().split(separator: "\n").map(String.init)
        let settings = try AppConfiguration.fromEnvironment([:]).settings
        let wide = lines.filter { $0.count > 100 }
        #expect(wide == [])
        var columns = Set<Int>()
        for line in lines.dropFirst(3) {
            let leading = line.prefix { $0 == " " }.count
            if let setting = settings.first(where: { line.dropFirst(leading).hasPrefix($0.name + " ") }), leading == 2 {
                let afterName = line.dropFirst(leading + setting.name.count)
                columns.insert(leading + setting.name.count + afterName.prefix { $0 == " " }.count)
            } else {
                columns.insert(leading)
            }
        }
        #expect(columns.count == 1, "descriptions start in columns \(columns.sorted())")
    }
}
