@testable import App
import Foundation
import PureTestSupport
import Testing
import TestSupport

extension AppE2ETests.Observability {
    /// Item 3: refusals at MAX_INFLIGHT_LOADS had no counter (overload_refusals_total counts only
    /// MAX_INFLIGHT_REQUESTS ones).
    @Test func loadRefusalsHaveTheirOwnCounter() async throws {
        try await withE2E(configure: { $0.service.maxInFlightLoads = 1 }) { env async throws in
            env.stub.pause(route: .product)
            let holding = Task { try await env.get("/products/p51") }
            await eventually(.live) { env.stub.pausedRequests >= 1 }
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
