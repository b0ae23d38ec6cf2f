@testable import App
import Testing

/// Invalidation as a client of the admin routes sees it: a suggested product's invalidation
/// reaches the pages that show it, in one call for many, and a CDN in front gets the keys.
struct DependentInvalidationRouteTests {
    @Test func deletingASuggestedProductReachesThePageThatShowsIt() async throws {
        try await InMemoryApp.with { app in
            _ = try await app.request("/products/p1")
            _ = try await app.request("/products/p2")
            #expect(try await app.delete("/cache/products/p1-s1").status == 204)
            #expect(try await !app.request("/products/p1").immediate, "p1 shows p1-s1")
            #expect(try await app.request("/products/p2").immediate, "p2 does not")
        }
    }

    @Test func aBulkInvalidationForgetsEveryIdAndTheirDependentsInOneCall() async throws {
        try await InMemoryApp.with { app in
            for id in ["p1", "p2", "p3"] { _ = try await app.request("/products/\(id)") }
            let reply = try await app.invalidate(body: #"{"products":["p1","p2-s1","p1"]}"#)
            #expect(reply.status == 204 && reply.response.body.isEmpty)
            #expect(reply.header("X-Invalidation-Receivers") == nil)
            #expect(try await !app.request("/products/p1").immediate)
            #expect(try await !app.request("/products/p2").immediate)
            #expect(try await app.request("/products/p3").immediate)
        }
    }

    @Test func aBadBulkBodyIsAProblemAndInvalidatesNothing() async throws {
        try await InMemoryApp.with { app in
            _ = try await app.request("/products/p1")
            let bad = try await app.invalidate(body: #"{"products":["p1","bad id"]}"#)
            #expect(bad.status == 400)
            #expect(bad.header("Content-Type") == "application/problem+json")
            #expect(bad.text.contains("products[1] is not a valid product id"))
            let type = try await app.invalidate(body: #"{"products":["p1"]}"#, contentType: "text/plain")
            #expect(type.status == 415)
            #expect(type.header("Accept-Post") == "application/json")
            let large = try await app.invalidate(body: String(repeating: " ", count: 300_000) + #"{"products":["p1"]}"#)
            #expect(large.status == 413)
            #expect(try await app.request("/products/p1").immediate, "still cached")
        }
    }

    @Test func theBulkRouteWantsTheBearerToken() async throws {
        try await InMemoryApp.with { app async throws in
            #expect(try await app.invalidate(body: #"{"products":["p1"]}"#, token: nil).status == 401)
            #expect(try await app.invalidate(body: "not json", token: "wrong").status == 401)
        }
        try await InMemoryApp.with(adminToken: nil) { app async throws in
            #expect(try await app.invalidate(body: #"{"products":["p1"]}"#).status == 403)
        }
    }

    @Test func aPageListsTheIdsItShowsUnderTheSurrogateKeyHeader() async throws {
        try await InMemoryApp.with(surrogateKeyHeader: "Surrogate-Key") { app in
            let page = try await app.request("/products/p1")
            #expect(page.header("Surrogate-Key") == "p1 p1-s1")
            let tag = try #require(page.header("ETag"))
            let notModified = try await app.request("/products/p1", headers: [("If-None-Match", tag)])
            #expect(notModified.status == 304)
            #expect(notModified.header("Surrogate-Key") == "p1 p1-s1")
            #expect(try await app.request("/products/p999999").header("Surrogate-Key") == nil)
            #expect(try await app.request("/products?ids=p1,p2").header("Surrogate-Key") == nil)
        }
        try await InMemoryApp.with { app async throws in
            #expect(try await app.request("/products/p1").header("Surrogate-Key") == nil)
        }
    }

    @Test func theSurrogateKeyValueKeepsWholeIdsWithinItsCap() {
        let ids = (0..<1000).map { "product-\($0)-" + String(repeating: "x", count: 40) }
        let value = SurrogateKeys.value(for: ids)
        #expect(value.utf8.count <= SurrogateKeys.maxValueBytes)
        #expect(value.split(separator: " ").allSatisfy { ids.contains(String($0)) })
        #expect(value.hasPrefix("product-0-"))
    }

    @Test func theSurrogateKeyHeaderNameIsValidatedAtStart() {
        #expect(SurrogateKeys.isAllowedHeaderName("Surrogate-Key"))
        #expect(SurrogateKeys.isAllowedHeaderName("Cache-Tag"))
        #expect(SurrogateKeys.isAllowedHeaderName("xkey"))
        #expect(!SurrogateKeys.isAllowedHeaderName(""))
        #expect(!SurrogateKeys.isAllowedHeaderName("Surrogate Key"))
        #expect(!SurrogateKeys.isAllowedHeaderName("Content-Length"))
        #expect(!SurrogateKeys.isAllowedHeaderName("etag"))
        #expect(!SurrogateKeys.isAllowedHeaderName(String(repeating: "x", count: 65)))
        #expect(throws: ConfigurationError.self) {
            try AppConfiguration.fromEnvironment(["SURROGATE_KEY_HEADER": "Cache-Control"])
        }
        #expect((try? AppConfiguration.fromEnvironment(["SURROGATE_KEY_HEADER": "Cache-Tag"]))?.surrogateKeyHeader == "Cache-Tag")
    }
}
