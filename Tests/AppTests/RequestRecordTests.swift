@testable import App
import Locking
import ProductDetails
import PureTestSupport
import Testing
import TestSupport

/// A request's log line counts the upstream work of the load it started, retries included, and
/// none for a request that joined that load: the load tells the record of the request it was
/// started for (``LoadObserver``, no task-local).
struct RequestRecordTests {
    static var settings: ServiceSettings {
        var settings = ServiceSettings()
        settings.hedging = nil
        return settings
    }

    @Test func theStarterLogsItsAttemptsAndAJoinerNone() async throws {
        let events = RecordingEvents()
        try await InMemoryApp.with(settings: Self.settings, events: events) { app in
            app.upstream.hang(.products)
            let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
            let starter = Task {
                try await app.request("/products/p1", headers: [("X-Request-ID", "starter"), ("traceparent", traceparent)])
            }
            await eventually { app.time.sleeperCount > 0 }  // its first product attempt hangs
            let joiner = Task { try await app.request("/products/p1", headers: [("X-Request-ID", "joiner")]) }
            await eventually { events.count("coalesced") == 1 }
            app.upstream.hang(.products, false)
            // The hung attempt times out, and its retry answers.
            await app.drive(until: { app.upstream.productCalls == 2 })
            let (started, joined) = (try await starter.value, try await joiner.value)
            let hit = try await app.request("/products/p1", headers: [("X-Request-ID", "hit")])
            #expect([started.status, joined.status, hit.status] == [200, 200, 200])
            app.flushLog()
            let lines = app.log.objects.filter { $0["msg"] as? String == "request" }
            func line(_ id: String) -> [String: Any]? { lines.first { $0["requestId"] as? String == id } }
            #expect(line("starter")?["cache"] as? String == "miss")
            #expect(line("starter")?["upstreamAttempts"] as? Int == 4)
            #expect(line("starter")?["loadTraceId"] == nil)
            #expect(line("joiner")?["cache"] as? String == "miss")
            #expect(line("joiner")?["upstreamAttempts"] as? Int == 0)
            #expect(line("joiner")?["loadTraceId"] as? String == "4bf92f3577b34da6a3ce929d0e0e4736")
            #expect(line("hit")?["cache"] as? String == "hit")
            #expect(line("hit")?["upstreamAttempts"] as? Int == 0)
        }
    }

    /// A batch's line counts every load it started.
    @Test func aBatchLogsTheLoadsItStarted() async throws {
        try await InMemoryApp.with { app in
            _ = try await app.request("/products/p1")
            let batch = try await app.request("/products?ids=p1,p2,p3,p2", headers: [("X-Request-ID", "batch")])
            #expect(batch.status == 200)
            app.flushLog()
            let line = app.log.objects.first { $0["requestId"] as? String == "batch" }
            #expect(line?["upstreamAttempts"] as? Int == 6)
        }
    }
}
