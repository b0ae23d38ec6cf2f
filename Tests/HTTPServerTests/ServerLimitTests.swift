import HTTP1
import HTTPServer
import Testing

@Suite("HTTP server limits and timeouts")
struct ServerLimitTests {
    struct Refusal: Sendable, CustomStringConvertible {
        let name: String
        let request: String
        let status: Int
        var description: String { name }
    }

    static let refusals: [Refusal] = [
        Refusal(name: "request line too long", request: "GET /\(String(repeating: "a", count: 300)) HTTP/1.1\r\nHost: t\r\n\r\n", status: 414),
        Refusal(name: "header section too large", request: "GET / HTTP/1.1\r\nHost: t\r\nX-Big: \(String(repeating: "b", count: 600))\r\n\r\n", status: 431),
        Refusal(name: "too many headers", request: "GET / HTTP/1.1\r\nHost: t\r\n" + (0..<12).map { "X-\($0): v\r\n" }.joined() + "\r\n", status: 431),
        Refusal(name: "body too large", request: "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2000\r\n\r\n", status: 413),
        Refusal(name: "unknown transfer coding", request: "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip\r\n\r\n", status: 501),
        Refusal(name: "unsupported version", request: "GET / HTTP/2.0\r\nHost: t\r\n\r\n", status: 505),
        Refusal(name: "smuggling: both lengths", request: "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", status: 400),
        Refusal(name: "missing host", request: "GET / HTTP/1.1\r\n\r\n", status: 400),
    ]

    @Test(arguments: refusals)
    func limitsAnswerTheirStatusThenClose(_ refusal: Refusal) async throws {
        try await withServer(configure: { config in
            config.limits.maxRequestLineBytes = 256
            config.limits.maxHeaderBytes = 512
            config.limits.maxHeaderCount = 10
            config.limits.maxBodyBytes = 1000
        }, routes: standardRoutes) { _, port in
            let client = try await RawClient.connect(port: port)
            try await client.send(refusal.request)
            let response = try await client.readResponse()
            #expect(response.status == refusal.status)
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(response.header("Connection") == "close")
            #expect(try await client.readsEndOfStream())
            // The server is still fine for the next client.
            let next = try await RawClient.connect(port: port)
            try await next.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try await next.readResponse().status == 200)
        }
    }

    @Test func slowRequestTimesOutWith408() async throws {
        try await withServer(configure: { $0.requestReadTimeout = .milliseconds(150) }, routes: standardRoutes) { _, port in
            let client = try await RawClient.connect(port: port)
            try await client.send("GET /hello HTTP/1.1\r\nHo")
            let response = try await client.readResponse()
            #expect(response.status == 408)
            #expect(try await client.readsEndOfStream())
        }
    }

    @Test func idleKeepAliveConnectionIsClosed() async throws {
        try await withServer(configure: { $0.idleTimeout = .milliseconds(500) }, routes: standardRoutes) { _, port in
            let client = try await RawClient.connect(port: port)
            try await client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try await client.readResponse().status == 200)
            #expect(try await client.readsEndOfStream())
        }
    }

    @Test func connectionsBeyondTheCapAreClosed() async throws {
        try await withServer(configure: { $0.maxConnections = 1 }, loops: 1, routes: standardRoutes) { server, port in
            let first = try await RawClient.connect(port: port)
            try await first.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try await first.readResponse().status == 200)
            let second = try await RawClient.connect(port: port)
            #expect(try await second.readsEndOfStream())
            #expect(server.openConnections == 1)
        }
    }
}
