@testable import App
import ProductDetails
import Testing

/// Answers by encoding, bytes before and after compression, and the log line's `encoding`.
@Suite("Compression metrics and log")
struct CompressionMetricsTests {
    static func sample(_ app: InMemoryApp, _ series: String) -> Int? {
        var body: [UInt8] = []
        app.front.metrics.registry.render(into: &body)
        for line in String(decoding: body, as: UTF8.self).split(separator: "\n") where line.hasPrefix(series + " ") {
            return Int(line.dropFirst(series.count + 1))
        }
        return nil
    }

    @Test func answersAndBytesByEncoding() async throws {
        try await InMemoryApp.with(settings: ServiceSettings(gzipMinBytes: 64)) { app in
            let identity = try await app.request("/products/p1")
            let gzip = try await app.request("/products/p1", headers: [("Accept-Encoding", "gzip")])
            // Nothing written for these two: counted as answers, not as bytes.
            _ = try await app.request("/products/p1", method: .head, headers: [("Accept-Encoding", "gzip")])
            _ = try await app.request("/products/p1", headers: [("Accept-Encoding", "gzip"), ("If-None-Match", try #require(gzip.header("ETag")))])
            _ = try await app.request("/healthz")
            #expect(Self.sample(app, #"product_details_http_encoded_responses_total{encoding="identity"}"#) == 1)
            #expect(Self.sample(app, #"product_details_http_encoded_responses_total{encoding="gzip"}"#) == 3)
            let (plain, packed) = (identity.response.body.count, gzip.response.body.count)
            #expect(Self.sample(app, #"product_details_http_response_body_bytes_total{stage="uncompressed"}"#) == 2 * plain)
            #expect(Self.sample(app, #"product_details_http_response_body_bytes_total{stage="sent"}"#) == plain + packed)
        }
    }

    @Test func theRequestLineNamesTheEncoding() async throws {
        try await InMemoryApp.with(settings: ServiceSettings(gzipMinBytes: 64)) { app in
            _ = try await app.request("/products/p1", headers: [("X-Request-ID", "plain")])
            _ = try await app.request("/products/p1", headers: [("X-Request-ID", "packed"), ("Accept-Encoding", "gzip")])
            _ = try await app.request("/healthz", headers: [("X-Request-ID", "health"), ("Accept-Encoding", "gzip")])
            app.flushLog()
            let lines = app.log.objects.filter { $0["msg"] as? String == "request" }
            let seen = lines.map { "\($0["requestId"] as? String ?? "?") \($0["encoding"] as? String ?? "?")" }
            #expect(seen == ["plain identity", "packed gzip", "health identity"])
        }
    }
}
