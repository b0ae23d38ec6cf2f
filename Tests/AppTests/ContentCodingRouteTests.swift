@testable import App
import Gzip
import GzipInflating
import ProductDetails
import Testing

/// `GET /products/{id}` and Accept-Encoding, byte by byte through the request parser: the stored
/// gzip variant when the client prefers it, `Vary` on every answer, a tag per variant and the
/// 304s it gives, and the threshold below which a page has no variant.
@Suite("Content coding of pages")
struct ContentCodingRouteTests {
    /// The in-memory catalogue's pages are a few hundred bytes: below the default threshold.
    static let settings = ServiceSettings(gzipMinBytes: 64)

    static func inflate(_ body: [UInt8]) throws -> [UInt8] {
        try GzipInflater().decompress(body, limit: 1 << 20)
    }

    /// Each Accept-Encoding shape and the coding it gets (RFC 9110 §12.5.3); `nil` sends no field.
    @Test(arguments: [
        (nil, false), ("gzip", true), ("gzip, deflate, br", true), ("x-gzip", true), ("GZip", true), ("*", true),
        ("gzip;q=0", false), ("gzip; q=0.001", true), ("gzip;q=0.5, identity", false), ("identity;q=0.5, gzip", true),
        ("gzip;q=0.5, identity;q=0.5", true), ("br, deflate", false), ("", false), ("identity", false),
        // identity refused and gzip not asked for: served identity anyway (ContentCodingChoice).
        ("identity;q=0", false), ("*;q=0", false), ("br, identity;q=0", false), ("gzip;q=2", false), ("gzip;level=1", false),
    ] as [(String?, Bool)])
    func negotiationOnTheRoute(acceptEncoding: String?, gzipped: Bool) async throws {
        try await InMemoryApp.with(settings: Self.settings) { app in
            let identity = try await app.request("/products/p1")
            #expect(identity.header("Content-Encoding") == nil)
            let etag = try #require(identity.header("ETag"))
            let reply = try await app.request("/products/p1", headers: acceptEncoding.map { [("Accept-Encoding", $0)] } ?? [])
            #expect(reply.status == 200 && reply.immediate)
            #expect(reply.header("Vary") == "Accept-Encoding")
            #expect(reply.header("Content-Type") == "application/json")
            if gzipped {
                #expect(reply.header("Content-Encoding") == "gzip")
                #expect(reply.header("ETag") == String(etag.dropLast()) + "-gz\"")
                #expect(try Self.inflate(Array(reply.response.body)) == Array(identity.response.body))
                #expect(reply.response.body.count < identity.response.body.count)
                #expect(reply.response.coding == .gzip(identityBytes: identity.response.body.count))
            } else {
                #expect(reply.header("Content-Encoding") == nil)
                #expect(reply.header("ETag") == etag)
                #expect(reply.response.body == identity.response.body)
                #expect(reply.response.coding == .identity)
            }
        }
    }

    @Test func theFirstAnswerOfALoadIsAlreadyGzipped() async throws {
        try await InMemoryApp.with(settings: Self.settings) { app in
            let miss = try await app.request("/products/p2", headers: [("Accept-Encoding", "gzip")])
            #expect(!miss.immediate && miss.header("Cache-Status") == "product-details; fwd=miss; ttl=60")
            #expect(miss.header("Content-Encoding") == "gzip" && miss.header("Vary") == "Accept-Encoding")
            let identity = try await app.request("/products/p2")
            #expect(try Self.inflate(Array(miss.response.body)) == Array(identity.response.body))
        }
    }

    /// A tag per variant: a 304 confirms only the variant that would be sent now.
    @Test func ifNoneMatchComparesWithTheVariantSentNow() async throws {
        try await InMemoryApp.with(settings: Self.settings) { app in
            let identityTag = try #require(try await app.request("/products/p3").header("ETag"))
            let gzipped = try await app.request("/products/p3", headers: [("Accept-Encoding", "gzip")])
            let gzipTag = try #require(gzipped.header("ETag"))
            #expect(gzipTag == String(identityTag.dropLast()) + "-gz\"")

            func ask(_ tag: String, gzip: Bool) async throws -> InMemoryApp.Answer {
                try await app.request("/products/p3", headers: [("If-None-Match", tag)] + (gzip ? [("Accept-Encoding", "gzip")] : []))
            }
            let heldGzip = try await ask(gzipTag, gzip: true)
            #expect(heldGzip.status == 304 && heldGzip.response.body.isEmpty)
            #expect(heldGzip.header("ETag") == gzipTag && heldGzip.header("Vary") == "Accept-Encoding")
            let weak = try await ask("W/" + gzipTag, gzip: true)
            #expect(weak.status == 304)
            let heldIdentity = try await ask(identityTag, gzip: false)
            #expect(heldIdentity.status == 304 && heldIdentity.header("ETag") == identityTag)
            // The identity tag held, gzip asked for now: the gzip variant, whole.
            let switched = try await ask(identityTag, gzip: true)
            #expect(switched.status == 200 && switched.header("Content-Encoding") == "gzip")
            #expect(switched.header("ETag") == gzipTag && switched.response.body == gzipped.response.body)
            // The gzip tag held, identity asked for now: the identity page, whole.
            let back = try await ask(gzipTag, gzip: false)
            #expect(back.status == 200 && back.header("Content-Encoding") == nil && back.header("ETag") == identityTag)
            let list = try await ask("\"other\", \(gzipTag)", gzip: true)
            #expect(list.status == 304)
        }
    }

    @Test func headGivesTheHeadersOfGet() async throws {
        try await InMemoryApp.with(settings: Self.settings) { app in
            for headers in [[], [("Accept-Encoding", "gzip")]] {
                let get = try await app.request("/products/p4", headers: headers)
                let head = try await app.request("/products/p4", method: .head, headers: headers)
                #expect(head.status == 200)
                for name in ["Content-Encoding", "Vary", "ETag", "Content-Type", "Cache-Control"] {
                    #expect(head.header(name) == get.header(name), "\(name)")
                }
                // The server writes the body's length and drops the body itself.
                #expect(head.response.body == get.response.body)
            }
        }
    }

    /// Below `GZIP_MIN_BYTES` a page has no variant: identity to everyone, `Vary` all the same.
    @Test func aPageBelowTheThresholdIsIdentityWithVary() async throws {
        try await InMemoryApp.with(settings: ServiceSettings(gzipMinBytes: 1 << 20)) { app in
            let identity = try await app.request("/products/p5")
            let reply = try await app.request("/products/p5", headers: [("Accept-Encoding", "gzip")])
            #expect(reply.status == 200 && reply.header("Content-Encoding") == nil)
            #expect(reply.header("Vary") == "Accept-Encoding")
            #expect(reply.header("ETag") == identity.header("ETag") && reply.response.body == identity.response.body)
        }
    }

    @Test func problemsOfThePageRouteCarryVary() async throws {
        try await InMemoryApp.with(settings: Self.settings) { app in
            let invalid = try await app.request("/products/not%20valid", headers: [("Accept-Encoding", "gzip")])
            #expect(invalid.status == 400 && invalid.header("Vary") == "Accept-Encoding")
            #expect(invalid.header("Content-Encoding") == nil)
        }
    }
}
