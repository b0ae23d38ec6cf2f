import App
import HTTP1
import Testing
import TestSupport

extension AppE2ETests {
    @Suite struct PathEncoding {
        /// RFC 3986: `%70%31` is `p1`. Found by the contract session: this was a 400.
        @Test func percentEncodedIdsAreTheSameProduct() async throws {
            try await withE2E { env async throws in
                let plain = try await env.get("/products/p1")
                let encoded = try await env.get("/products/%70%31")
                #expect(encoded.status == 200)
                #expect(encoded.body == plain.body)
                #expect(try await env.get("/products/a%2Fb").status == 400)
            }
        }
    }
}
