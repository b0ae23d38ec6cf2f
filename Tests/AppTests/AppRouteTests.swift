import HTTP1
import Testing

/// The routes' semantics, request in and answer out, with no socket: validators, `Cache-Status`
/// and freshness on the hand-moved time line, the admin routes' token, problem bodies, request
/// ids. The live suites keep what needs the wire (HEAD bodies, what follows a 304, timeouts).
@Suite("App routes in memory")
struct AppRouteTests {
    @Test func aPageIsLoadedOnceThenAnsweredAtOnceWithTheTTLLeft() async throws {
        try await InMemoryApp.with { app in
            let miss = try await app.request("/products/p1")
            #expect(miss.status == 200 && !miss.immediate)
            #expect(miss.header("Cache-Status") == "product-details; fwd=miss; ttl=60")
            #expect(miss.header("Cache-Control") == "max-age=60")
            #expect(miss.header("Content-Type") == "application/json")
            #expect(try miss.json()["product"]?["id"]?.string == "p1")
            app.time.advance(by: .seconds(20))
            let hit = try await app.request("/products/p1")
            #expect(hit.status == 200 && hit.immediate, "a fresh page needs no task")
            #expect(hit.header("Cache-Status") == "product-details; hit; ttl=40")
            #expect(hit.header("Cache-Control") == "max-age=40")
            #expect(hit.response.body == miss.response.body)
            #expect(hit.header("ETag") == miss.header("ETag"))
            #expect(app.upstream.productCalls == 1)
        }
    }

    /// Past its TTL, within stale-while-revalidate: served stale after waiting for nothing but
    /// the start of its one refresh, which the next request then finds fresh.
    @Test func anExpiredPageIsServedStaleWhileItIsRefreshed() async throws {
        try await InMemoryApp.with { app in
            _ = try await app.request("/products/p2")
            app.time.advance(by: .seconds(61))
            let stale = try await app.request("/products/p2")
            #expect(stale.status == 200 && !stale.immediate)
            #expect(stale.header("Cache-Status") == "product-details; fwd=stale; ttl=-1; detail=revalidating")
            while app.service.inFlightCount > 0 || app.upstream.productCalls < 2 { await Task.yield() }
            let refreshed = try await app.request("/products/p2")
            #expect(refreshed.immediate)
            #expect(refreshed.header("Cache-Status") == "product-details; hit; ttl=60")
        }
    }

    @Test(arguments: ["ETAG", "W/ETAG", "\"other\", ETAG", "*"])
    func ifNoneMatchWithTheETagIs304WithoutABody(candidate: String) async throws {
        try await InMemoryApp.with { app in
            let first = try await app.request("/products/p800")
            let etag = try #require(first.header("ETag"))
            let reply = try await app.request("/products/p800", headers: [("If-None-Match", candidate.replacingETag(with: etag))])
            #expect(reply.status == 304)
            #expect(reply.response.body.isEmpty)
            #expect(reply.header("ETag") == etag)
            #expect(reply.header("Cache-Status") == "product-details; hit; ttl=60")
            let other = try await app.request("/products/p800", headers: [("If-None-Match", "\"other\"")])
            #expect(other.status == 200 && other.response.body == first.response.body)
        }
    }

    @Test(arguments: [("Cache-Control", "no-cache"), ("Pragma", "no-cache"), ("Cache-Control", "max-age=0, no-cache")])
    func noCacheLoadsFresh(name: String, value: String) async throws {
        try await InMemoryApp.with { app in
            _ = try await app.request("/products/p900")
            let fresh = try await app.request("/products/p900", headers: [(name, value)])
            #expect(fresh.status == 200 && !fresh.immediate)
            #expect(fresh.header("Cache-Status") == "product-details; fwd=miss; ttl=60")
            #expect(app.upstream.productCalls == 2)
        }
    }

    @Test func adminRoutesWantTheBearerToken() async throws {
        try await InMemoryApp.with { app in
            _ = try await app.request("/products/p700")
            let anonymous = try await app.delete("/cache/products/p700", token: nil)
            #expect(anonymous.status == 401)
            // RFC 6750 §3.1: no credentials, no error code.
            #expect(anonymous.header("WWW-Authenticate") == #"Bearer realm="product-details""#)
            #expect(anonymous.header("Content-Type") == "application/problem+json")
            let wrong = try await app.delete("/cache/products/p700", token: "not-the-token")
            #expect(wrong.status == 401)
            #expect(wrong.header("WWW-Authenticate") == #"Bearer realm="product-details", error="invalid_token""#)
            #expect(try await app.request("/products/p700").immediate, "still cached")

            let right = try await app.delete("/cache/products/p700")
            #expect(right.status == 204 && right.response.body.isEmpty)
            #expect(try await !app.request("/products/p700").immediate, "forgotten")

            #expect(try await app.delete("/cache", token: nil).status == 401)
            #expect(try await app.delete("/cache").status == 204)
            #expect(try await !app.request("/products/p700").immediate)
            #expect(app.upstream.productCalls == 3)
        }
    }

    @Test func adminRoutesAreOffWithoutAnAdminToken() async throws {
        try await InMemoryApp.with(adminToken: nil) { app in
            let reply = try await app.delete("/cache/products/p1", token: "anything")
            #expect(reply.status == 403)
            #expect(reply.header("Content-Type") == "application/problem+json")
            #expect(try await app.delete("/cache", token: nil).status == 403)
        }
    }

    @Test func anUnknownProductIsA404ProblemAndIsCached() async throws {
        try await InMemoryApp.with { app in
            let reply = try await app.request("/products/p999999")
            #expect(reply.status == 404)
            #expect(reply.header("Content-Type") == "application/problem+json")
            let problem = try reply.json()
            #expect(problem.keys == ["type", "title", "status", "detail"])
            #expect(problem["status"]?.int == 404)
            #expect(problem["title"]?.string == "Not Found")
            #expect(try await app.request("/products/p999999").immediate)
            #expect(app.upstream.productCalls == 1)
        }
    }

    @Test(arguments: ["bad!", String(repeating: "a", count: 65), "%2e%2e", "p1%00", "p.1"])
    func anInvalidIdIs400BeforeAnyUpstreamCall(id: String) async throws {
        try await InMemoryApp.with { app in
            let reply = try await app.request("/products/\(id)")
            #expect(reply.status == 400)
            #expect(reply.header("Content-Type") == "application/problem+json")
            #expect(try reply.json()["status"]?.int == 400)
            #expect(app.upstream.productCalls == 0)
            #expect(app.service.cacheEntryCount == 0)
        }
    }

    @Test func unknownPathsAndMethodsAreProblemsAnsweredAtOnce() async throws {
        try await InMemoryApp.with { app in
            let nowhere = try await app.request("/nowhere")
            #expect(nowhere.status == 404 && nowhere.immediate)
            #expect(nowhere.header("Content-Type") == "application/problem+json")
            let post = try await app.request("/products/p1", method: .post)
            #expect(post.status == 405 && post.immediate)
            #expect(post.header("Allow") == "GET, HEAD")
            #expect(try post.json()["status"]?.int == 405)
        }
    }

    /// The health answer is made once at start; each answer still gets its own request id, and
    /// none leaks into the next. (In memory no server listens, so `/readyz` says not ready: the
    /// live suites ask it.)
    @Test func theHealthAnswerIsNoStoreJSONEachWithItsOwnRequestID() async throws {
        try await InMemoryApp.with { app in
            let echoed = try await app.request("/healthz", headers: [("X-Request-ID", "mem-health")])
            let made = try await app.request("/healthz")
            for answer in [echoed, made] {
                #expect(answer.status == 200 && answer.immediate)
                #expect(answer.header("Content-Type") == "application/json")
                #expect(answer.header("Cache-Control") == "no-store")
                #expect(answer.text == #"{"status":"ok"}"#)
            }
            #expect(echoed.header("X-Request-ID") == "mem-health")
            let id = try #require(made.header("X-Request-ID"))
            #expect(RequestIDs.isUsable(id) && id != "mem-health")
            #expect(made.response.fields.bytes.count == echoed.response.fields.bytes.count + id.utf8.count - "mem-health".utf8.count)
        }
    }

    @Test func theRequestIDIsEchoedOrMade() async throws {
        try await InMemoryApp.with { app in
            let echoed = try await app.request("/products/p1", headers: [("X-Request-ID", "mem-0001")])
            #expect(echoed.header("X-Request-ID") == "mem-0001")
            let echoedHit = try await app.request("/products/p1", headers: [("X-Request-ID", "mem-0002")])
            #expect(echoedHit.immediate && echoedHit.header("X-Request-ID") == "mem-0002")
            let problem = try await app.request("/products/bad!", headers: [("X-Request-ID", "mem-0003")])
            #expect(problem.status == 400 && problem.header("X-Request-ID") == "mem-0003")
            let made = try #require(try await app.request("/products/p1").header("X-Request-ID"))
            let another = try #require(try await app.request("/products/p1").header("X-Request-ID"))
            #expect(RequestIDs.isUsable(made) && RequestIDs.isUsable(another) && made != another)
            let tooLong = String(repeating: "x", count: 129)
            let replaced = try #require(try await app.request("/products/p1", headers: [("X-Request-ID", tooLong)]).header("X-Request-ID"))
            #expect(replaced != tooLong && RequestIDs.isUsable(replaced))
        }
    }

    /// The observer logs every answer with its route (never the raw path), cache result and id,
    /// whether the route answered at once or after waiting.
    @Test func everyAnswerIsLoggedWithItsRouteAndCacheResult() async throws {
        try await InMemoryApp.with { app in
            _ = try await app.request("/products/p1", headers: [("X-Request-ID", "log-miss")])
            _ = try await app.request("/products/p1", headers: [("X-Request-ID", "log-hit")])
            _ = try await app.request("/nowhere", headers: [("X-Request-ID", "log-404")])
            app.flushLog()
            let lines = app.log.objects.filter { $0["msg"] as? String == "request" }
            let seen = lines.map { "\($0["requestId"] as? String ?? "?") \($0["route"] as? String ?? "?") \($0["cache"] as? String ?? "?")" }
            #expect(seen == ["log-miss /products/{id} miss", "log-hit /products/{id} hit", "log-404 unmatched none"])
        }
    }
}

extension String {
    /// The If-None-Match candidate with `ETAG` standing for the page's tag.
    fileprivate func replacingETag(with etag: String) -> String {
        var result = ""
        var rest = Substring(self)
        while let range = rest.range(of: "ETAG") {
            result += rest[..<range.lowerBound] + etag
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
