import App
import HTTP1
import Testing
import TestSupport

/// The wire side of the semantics: nothing follows a 304 or a HEAD answer. The routes' own rules
/// (validators, no-cache, admin token, request ids) are checked in memory (AppRouteTests).
extension AppE2ETests.Semantics {
    @Test func nothingFollowsA304OnTheWire() async throws {
        try await withE2E { env in
            let first = try await env.get("/products/p800")
            let etag = try #require(first.header("ETag"))
            let client = try await env.raw()
            let reply = try await client.request("/products/p800", headers: [("If-None-Match", etag)])
            #expect(reply.status == 304)
            #expect(reply.body.isEmpty)
            // Nothing followed the 304 on the wire: the next answer parses from its first byte.
            let full = try await client.request("/products/p800", headers: [("If-None-Match", "\"other\"")])
            #expect(full.status == 200)
            #expect(full.body == first.body)
        }
    }

    @Test func headOfAProductHasTheHeadersButNoBody() async throws {
        try await withE2E { env in
            let full = try await env.get("/products/p1")
            let client = try await env.raw()
            let head = try await client.request("/products/p1", method: "HEAD")
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            #expect(head.header("Content-Length") == String(full.body.count))
            #expect(head.header("ETag") == full.header("ETag"))
            // Had a body followed the HEAD answer, this GET would read it as its own start.
            let next = try await client.request("/products/p1")
            #expect(next.status == 200)
            #expect(next.body == full.body)
        }
    }
}

/// What the contract asks of a request id the service makes: visible ASCII, 1 to 128 bytes.
enum RequestIDs {
    static func isUsable(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count) && id.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }
}
