import Gzip
import GzipInflating
import HTTP1
import Testing
import TestSupport

/// Content coding on the wire, through the real server and a raw socket: a page's gzip variant
/// with its own length, HEAD with the headers of GET, and nothing after either.
extension AppE2ETests.Semantics {
    /// A demo page long enough for a gzip variant (the default `GZIP_MIN_BYTES` is 512).
    static func compressiblePage(_ env: E2E) async throws -> (path: String, body: [UInt8]) {
        for number in 1...50 {
            let reply = try await env.get("/products/p\(number)")
            if reply.body.count >= 1024 { return ("/products/p\(number)", reply.body) }
        }
        throw RawClientError.closed
    }

    @Test func aGzipPageAndItsHeadOnTheWire() async throws {
        try await withE2E { env in
            let (path, identity) = try await Self.compressiblePage(env)
            let client = try await env.raw()
            let gzip = try await client.request(path, headers: [("Accept-Encoding", "gzip, deflate, br")])
            #expect(gzip.status == 200)
            #expect(gzip.header("Content-Encoding") == "gzip" && gzip.header("Vary") == "Accept-Encoding")
            #expect(gzip.header("Content-Length") == String(gzip.body.count))
            #expect(try GzipInflater().decompress(gzip.body, limit: 1 << 20) == identity)
            let head = try await client.request(path, method: "HEAD", headers: [("Accept-Encoding", "gzip")])
            #expect(head.status == 200 && head.body.isEmpty)
            for name in ["Content-Length", "Content-Encoding", "Vary", "ETag", "Content-Type"] {
                #expect(head.header(name) == gzip.header(name), "\(name)")
            }
            let plain = try await client.request(path, method: "HEAD")
            #expect(plain.header("Content-Length") == String(identity.count) && plain.header("Content-Encoding") == nil)
            #expect(plain.header("Vary") == "Accept-Encoding")
            // Had a body followed either HEAD answer, this GET would read it as its own start.
            let next = try await client.request(path, headers: [("If-None-Match", try #require(gzip.header("ETag"))), ("Accept-Encoding", "gzip")])
            #expect(next.status == 304 && next.body.isEmpty)
        }
    }
}
