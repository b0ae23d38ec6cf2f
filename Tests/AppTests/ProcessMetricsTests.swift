@testable import App
import Foundation
import Testing

@Suite struct ProcessStatusTests {
    /// proc(5): the command name may hold spaces and parentheses; fields count from after the last `)`.
    @Test func readsCPUMemoryAndStartFromAStatLine() throws {
        let stat = "4242 (odd) name)) S 1 4242 4242 0 -1 4194560 900 0 0 0 250 50 0 0 20 0 3 0 123400 104857600 2560 18446744073709551615"
        let status = try #require(ProcessStatus(stat: stat, ticksPerSecond: 100, pageSize: 4096))
        #expect(status.cpuSeconds == 3)
        #expect(status.startTicksAfterBoot == 1234)
        #expect(status.virtualBytes == 104_857_600)
        #expect(status.residentBytes == 2560 * 4096)
        #expect(ProcessStatus(stat: "4242 (cut short) S 1", ticksPerSecond: 100, pageSize: 4096) == nil)
    }

    @Test func readsTheBootTime() {
        #expect(ProcessStatus.bootTime(procStat: "cpu  1 2 3\nintr 5\nbtime 1764800000\nprocesses 9\n") == 1_764_800_000)
        #expect(ProcessStatus.bootTime(procStat: "cpu  1 2 3\n") == nil)
    }
}

@Suite struct LogRateLimiterTests {
    @Test func letsALimitThroughPerSecondThenSaysHowManyWereHeldBack() {
        let limiter = LogRateLimiter(linesPerSecond: 3)
        let start = ContinuousClock.now
        #expect((0..<3).map { _ in limiter.admit(now: start) } == [0, 0, 0])
        #expect(limiter.admit(now: start + .milliseconds(500)) == nil)
        #expect(limiter.admit(now: start + .milliseconds(900)) == nil)
        #expect(limiter.admit(now: start + .seconds(1)) == 2)
        #expect(limiter.admit(now: start + .seconds(1)) == 0)
    }
}

extension AppE2ETests.Observability {
    /// Item 3: refusals at MAX_INFLIGHT_LOADS had no counter (overload_refusals_total counts only
    /// MAX_INFLIGHT_REQUESTS ones).
    @Test func loadRefusalsHaveTheirOwnCounter() async throws {
        try await withE2E(configure: { $0.service.maxInFlightLoads = 1 }) { env async throws in
            env.stub.pause(route: .product)
            let holding = Task { try await env.get("/products/p51") }
            #expect(await eventually { env.stub.pausedRequests >= 1 })
            #expect(try await env.get("/products/p52").status == 503)
            #expect(try await env.metric("load_refusals_total") == 1)
            #expect(try await env.metric("overload_refusals_total") == 0)
            env.stub.resume()
            #expect(try await holding.value.status == 200)
        }
    }

    /// Item 5: the process series the Prometheus client libraries export, and the build.
    @Test func processSeriesAndBuildInfoAreScraped() async throws {
        try await withE2E { env async throws in
            let text = try await env.metricsSnapshot().text
            func value(_ name: String, _ labels: [String: String] = [:]) throws -> Double {
                try #require(PrometheusText.value(of: name, labels: labels, in: text))
            }
            #expect(text.contains("# TYPE process_cpu_seconds_total counter"))
            #expect(try value("process_cpu_seconds_total") > 0)
            #expect(try value("process_resident_memory_bytes") > 1_000_000)
            let resident = try value("process_resident_memory_bytes")
            #expect(try value("process_virtual_memory_bytes") >= resident)
            let open = try value("process_open_fds")
            let limit = try value("process_max_fds")
            #expect(open > 3 && open <= limit)
            let now = Date().timeIntervalSince1970
            let start = try value("process_start_time_seconds")
            #expect(start > now - 86_400 && start <= now + 1)
            #expect(try value("product_details_build_info", ["version": AppVersion.current]) == 1)
        }
    }
}
