import App
import Redis
import Testing

@Suite("Redis URL")
struct RedisURLTests {
    @Test func hostAndPortOnly() throws {
        let url = try RedisURL(parsing: "redis://cache.internal:6380")
        #expect(url == RedisURL(host: "cache.internal", port: 6380))
        #expect(url.username == nil && url.password == nil && url.database == 0)
    }

    @Test func portAndDatabaseDefault() throws {
        #expect(try RedisURL(parsing: "redis://localhost") == RedisURL(host: "localhost", port: 6379))
        #expect(try RedisURL(parsing: "redis://localhost/") == RedisURL(host: "localhost", port: 6379))
    }

    @Test func passwordAndDatabase() throws {
        let url = try RedisURL(parsing: "redis://:s3cret@10.0.0.7:6379/2")
        #expect(url == RedisURL(host: "10.0.0.7", port: 6379, username: nil, password: "s3cret", database: 2))
    }

    @Test func aclUserAndPassword() throws {
        let url = try RedisURL(parsing: "redis://svc:pw@redis:6379/0")
        #expect(url.username == "svc")
        #expect(url.password == "pw")
    }

    @Test func passwordIsPercentDecoded() throws {
        let url = try RedisURL(parsing: "redis://:p%40ss%3Aw%2Fo%25rd%C3%A9@h:1")
        #expect(url.password == "p@ss:w/o%rdé")
    }

    @Test func schemeIsCaseInsensitive() throws {
        #expect(try RedisURL(parsing: "REDIS://h:1").host == "h")
    }

    @Test func bracketedIPv6() throws {
        #expect(try RedisURL(parsing: "redis://[::1]:7000/3") == RedisURL(host: "::1", port: 7000, database: 3))
        #expect(try RedisURL(parsing: "redis://[fe80::1]").port == 6379)
    }

    @Test func highestDefaultDatabaseIsFifteen() throws {
        #expect(try RedisURL(parsing: "redis://h:1/15").database == 15)
        #expect(try RedisURL(parsing: "redis://h:1/31", maxDatabase: 31).database == 31)
    }

    @Test func descriptionMasksThePassword() throws {
        let url = try RedisURL(parsing: "redis://svc:topsecret@h:6379/4")
        #expect(url.description == "redis://svc:***@h:6379/4")
        #expect(!url.description.contains("topsecret"))
        #expect(try RedisURL(parsing: "redis://[::1]").description == "redis://[::1]:6379")
    }

    @Test(arguments: [
        ("rediss://h:6379", RedisURLError.tlsNotSupported),
        ("http://h:6379", .badScheme),
        ("h:6379", .badScheme),
        ("redis:/h:6379", .badScheme),
        ("redis://", .emptyHost),
        ("redis://:6379", .emptyHost),
        ("redis://:pw@:6379/1", .emptyHost),
        ("redis://[]:6379", .emptyHost),
        ("redis://h:", .badPort),
        ("redis://h:0", .badPort),
        ("redis://h:65536", .badPort),
        ("redis://h:+80", .badPort),
        ("redis://h:80x", .badPort),
        ("redis://h:99999999999999999999", .badPort),
        ("redis://h:1/x", .badDatabase),
        ("redis://h:1/-1", .badDatabase),
        ("redis://h:1/1/2", .badDatabase),
        ("redis://h:1/16", .databaseOutOfRange),
        ("redis://h:1/0?timeout=1", .queryNotAllowed),
        ("redis://h:1#db", .queryNotAllowed),
        ("redis://pw@h:1", .badUserInfo),
        ("redis://user:@h:1", .badUserInfo),
        ("redis://:p%4@h:1", .badPercentEncoding),
        ("redis://:p%zz@h:1", .badPercentEncoding),
        ("redis://:%FF@h:1", .badPercentEncoding),
        ("redis://h st:1", .badHost),
        ("redis://::1:6379", .badHost),
        ("redis://[::1", .badHost),
        ("redis://[::1]x", .badHost),
    ])
    func invalidURLsAreRefusedWithTheirReason(_ text: String, _ expected: RedisURLError) {
        #expect(throws: expected) { try RedisURL(parsing: text) }
    }

    @Test func messagesNameThePartButNeverThePassword() {
        let errors: [RedisURLError] = ["redis://:hunter2%@h:1", "redis://u:hunter2@h:99999", "redis://:hunter2@h/99"].compactMap { text in
            do throws(RedisURLError) {
                _ = try RedisURL(parsing: text)
                return nil
            } catch {
                return error
            }
        }
        #expect(errors.count == 3)
        for error in errors { #expect(!error.description.contains("hunter2")) }
        #expect(errors[1].detail.contains("99999"))
        #expect(errors[2].detail.contains("0...15"))
    }

    @Test func tlsMessageSaysItIsOutOfScope() {
        #expect(RedisURLError.tlsNotSupported.description.contains("TLS"))
    }
}
