import App
import HTTP1
import Testing
import TestSupport

/// The HTTP side of the semantics: admin routes and their token, validators and no-cache,
/// request ids, HEAD.
extension AppE2ETests.Semantics {
    @Test func adminRoutesWantTheBearerToken() async throws {
        try await withE2E { env in
            #expect(try await env.get("/products/p700").isLoaderMiss)
            #expect(try await env.get("/products/p700").isHit)

            let anonymous = try await env.request(.delete, "/cache/products/p700")
            #expect(anonymous.status == 401)
            // RFC 6750 §3.1: no credentials, no error code.
            #expect(anonymous.header("WWW-Authenticate") == #"Bearer realm="product-details""#)
            #expect(anonymous.header("Content-Type") == "application/problem+json")

            let wrong = try await env.delete("/cache/products/p700", token: "not-the-token")
            #expect(wrong.status == 401)
            #expect(wrong.header("WWW-Authenticate") == #"Bearer realm="product-details", error="invalid_token""#)
            #expect(try await env.get("/products/p700").isHit)

            let right = try await env.delete("/cache/products/p700")
            #expect(right.status == 204)
            #expect(right.body.isEmpty)
            #expect(try await env.get("/products/p700").isLoaderMiss)

            #expect(try await env.request(.delete, "/cache").status == 401)
            #expect(try await env.delete("/cache").status == 204)
            #expect(try await env.get("/products/p700").isLoaderMiss)
            #expect(env.stub.stats().product == 3)
        }
    }

    @Test func adminRoutesAreOffWithoutAnAdminToken() async throws {
        try await withE2E(configure: { $0.adminToken = nil }) { env in
            let reply = try await env.delete("/cache/products/p1", token: "anything")
            #expect(reply.status == 403)
            #expect(reply.header("Content-Type") == "application/problem+json")
            #expect(try await env.request(.delete, "/cache").status == 403)
        }
    }

    @Test func ifNoneMatchWithTheETagIs304WithoutABody() async throws {
        try await withE2E { env in
            let first = try await env.get("/products/p800")
            let etag = try #require(first.header("ETag"))
            let client = try await env.raw()
            for candidate in [etag, "W/\(etag)", "\"other\", \(etag)", "*"] {
                let reply = try await client.request("/products/p800", headers: [("If-None-Match", candidate)])
                #expect(reply.status == 304, "If-None-Match: \(candidate)")
                #expect(reply.body.isEmpty)
                #expect(reply.header("ETag") == etag)
            }
            // Nothing followed the 304s on the wire: the next answer parses from its first byte.
            let full = try await client.request("/products/p800", headers: [("If-None-Match", "\"other\"")])
            #expect(full.status == 200)
            #expect(full.body == first.body)
        }
    }

    @Test func noCacheRequestLoadsFresh() async throws {
        try await withE2E { env in
            #expect(try await env.get("/products/p900").isLoaderMiss)
            #expect(try await env.get("/products/p900").isHit)
            let fresh = try await env.get("/products/p900", headers: ["Cache-Control": "no-cache"])
            #expect(fresh.status == 200)
            #expect(fresh.isLoaderMiss, "Cache-Status: \(fresh.cacheStatus)")
            #expect(env.stub.stats().product == 2)
            let pragma = try await env.get("/products/p900", headers: ["Pragma": "no-cache"])
            #expect(pragma.isLoaderMiss, "Cache-Status: \(pragma.cacheStatus)")
            #expect(env.stub.stats().product == 3)
        }
    }

    @Test func incomingRequestIDIsEchoedAndAMissingOneIsMade() async throws {
        try await withE2E { env in
            let echoed = try await env.get("/products/p1", headers: ["X-Request-ID": "e2e-7f3a-0001"])
            #expect(echoed.header("X-Request-ID") == "e2e-7f3a-0001")
            // A hit is answered on the loop, its id written straight into the fields.
            let echoedHit = try await env.get("/products/p1", headers: ["X-Request-ID": "e2e-7f3a-0003"])
            #expect(echoedHit.isHit)
            #expect(echoedHit.header("X-Request-ID") == "e2e-7f3a-0003")
            let problem = try await env.get("/products/bad!", headers: ["X-Request-ID": "e2e-7f3a-0002"])
            #expect(problem.status == 400)
            #expect(problem.header("X-Request-ID") == "e2e-7f3a-0002")
            let made = try #require(try await env.get("/products/p1").header("X-Request-ID"))
            #expect(RequestIDs.isUsable(made), "made \(made)")
            let another = try #require(try await env.get("/products/p1").header("X-Request-ID"))
            #expect(RequestIDs.isUsable(another) && another != made)
            let tooLong = String(repeating: "x", count: 129)
            let replaced = try #require(try await env.get("/products/p1", headers: ["X-Request-ID": tooLong]).header("X-Request-ID"))
            #expect(replaced != tooLong && RequestIDs.isUsable(replaced))
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
