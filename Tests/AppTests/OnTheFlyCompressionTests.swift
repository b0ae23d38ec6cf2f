@testable import App
import Gzip
import GzipInflating
import ProductDetails
import Testing

/// Batches and `/metrics` are made per request: gzipped on the fly, at a low level, for a client
/// that accepts gzip, with `Vary` on every answer.
@Suite("On-the-fly compression")
struct OnTheFlyCompressionTests {
    static func inflate(_ body: [UInt8]) throws -> [UInt8] {
        try GzipInflater().decompress(body, limit: 1 << 24)
    }

    @Test func aBatchIsGzippedForAClientThatAcceptsIt() async throws {
        try await InMemoryApp.with { app in
            let ids = (1...100).map { "p\($0)" }.joined(separator: ",")
            let identity = try await app.request("/products?ids=\(ids)")
            #expect(identity.status == 200 && identity.header("Content-Encoding") == nil)
            #expect(identity.header("Vary") == "Accept-Encoding" && identity.response.coding == .identity)
            let gzip = try await app.request("/products?ids=\(ids)", headers: [("Accept-Encoding", "gzip, deflate, br")])
            #expect(gzip.status == 200 && gzip.header("Content-Encoding") == "gzip" && gzip.header("Vary") == "Accept-Encoding")
            #expect(gzip.header("Content-Type") == "application/json" && gzip.header("Cache-Control") == "no-store")
            #expect(try Self.inflate(Array(gzip.response.body)) == Array(identity.response.body))
            #expect(gzip.response.coding == .gzip(identityBytes: identity.response.body.count))
            let refused = try await app.request("/products?ids=\(ids)", headers: [("Accept-Encoding", "gzip;q=0")])
            #expect(refused.header("Content-Encoding") == nil && refused.response.body == identity.response.body)
        }
    }

    @Test func aBatchBelowTheThresholdIsIdentity() async throws {
        try await InMemoryApp.with(settings: ServiceSettings(gzipMinBytes: 1 << 20)) { app in
            let reply = try await app.request("/products?ids=p1,p2", headers: [("Accept-Encoding", "gzip")])
            #expect(reply.status == 200 && reply.header("Content-Encoding") == nil && reply.header("Vary") == "Accept-Encoding")
            _ = try JSONValue.parse(Array(reply.response.body))
            let refused = try await app.request("/products", headers: [("Accept-Encoding", "gzip")])
            #expect(refused.status == 400 && refused.header("Vary") == "Accept-Encoding" && refused.header("Content-Encoding") == nil)
        }
    }

    @Test func metricsAreGzippedForAScraperThatAcceptsIt() async throws {
        try await InMemoryApp.with { app in
            let reply = try await app.request("/metrics", headers: [("Accept-Encoding", "gzip")])
            #expect(reply.status == 200 && reply.header("Content-Encoding") == "gzip" && reply.header("Vary") == "Accept-Encoding")
            let text = String(decoding: try Self.inflate(Array(reply.response.body)), as: UTF8.self)
            #expect(text.hasPrefix("# HELP ") && text.contains("product_details_http_requests_total"))
            let plain = try await app.request("/metrics")
            #expect(plain.header("Content-Encoding") == nil && plain.text.hasPrefix("# HELP "))
        }
    }
}
