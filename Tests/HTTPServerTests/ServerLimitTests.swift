import HTTP1
import HTTPServer
import Locking
import PureTestSupport
import Testing
import TestSupport

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

    // The read and idle timeout rules are stepped exactly in HTTPConnectionStateMachineTests;
    // these two prove the timer and the time line are wired to the socket.
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
        let idleTimeout = Duration.milliseconds(500)
        try await withServer(configure: { $0.idleTimeout = idleTimeout }, routes: standardRoutes) { _, port in
            let connecting = ContinuousClock.now
            let client = try await RawClient.connect(port: port)
            let status: Int
            do {
                try await client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
                status = try await client.readResponse().status
            } catch {
                // A host slow enough to keep this task from sending for a whole idle timeout sees
                // the fresh connection idle out first: rightly, but only that late.
                #expect(connecting.duration(to: .now) >= idleTimeout, "closed before any idle timeout: \(error)")
                return
            }
            #expect(status == 200)
            #expect(try await client.readsEndOfStream())
        }
    }

    /// A client that never reads an answer that closes its connection is cut off once the idle
    /// timeout has passed; it kept the socket, the answer queued and a connection slot for ever.
    @Test func aClientThatNeverReadsAClosingAnswerIsDisconnected() async throws {
        try await withServer(configure: { $0.idleTimeout = .milliseconds(300) }, routes: { router in
            // Far more than the kernel's socket buffers hold: most of it waits in the server.
            router.add(.get, "/huge") { _, _ in HTTPResponse(status: .ok, body: [UInt8](repeating: 0x61, count: 32 << 20)) }
        }) { server, port in
            let client = try await RawClient.connect(port: port)
            try await client.send("GET /huge HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            await eventually(.live) { server.openConnections == 0 }
            let (bytes, _) = try await client.readUntilClosed()
            #expect(bytes.count < 32 << 20, "cut off, not written whole")
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

@Suite("Overload")
struct OverloadTests {
    @Test func requestsBeyondTheInFlightCapGet503AtOnceAndCapacityComesBack() async throws {
        let release = Gate()
        let arrived = ArrivalCounter()
        try await withServer(configure: { $0.maxInFlightRequests = 2 }, routes: { router in
            standardRoutes(&router)
            router.add(.get, "/held") { _, _ in
                arrived.arrive()
                await release.wait()
                return .text(.ok, "held")
            }
        }) { server, port in
            let first = try await RawClient.connect(port: port)
            let second = try await RawClient.connect(port: port)
            try await first.send("GET /held HTTP/1.1\r\nHost: t\r\n\r\n")
            try await second.send("GET /held HTTP/1.1\r\nHost: t\r\n\r\n")
            while arrived.count < 2 { await Task.yield() }
            #expect(server.inFlightRequests == 2)

            let third = try await RawClient.connect(port: port)
            try await third.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            let refused = try await third.readResponse()
            #expect(refused.status == 503)
            #expect(refused.header("Retry-After") == "1")
            #expect(refused.header("Content-Type") == "application/problem+json")

            release.open()
            #expect(try await first.readResponse().text == "held")
            #expect(try await second.readResponse().text == "held")
            while server.inFlightRequests > 0 { await Task.yield() }
            // The refused connection stays usable once capacity is back.
            try await third.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try await third.readResponse().text == "hello")
        }
    }
}

/// Counts handler arrivals so a test knows when requests hold their slots.
final class ArrivalCounter: Sendable {
    private let arrivals = Locked(0)

    func arrive() { arrivals.withLock { $0 += 1 } }
    var count: Int { arrivals.withLock { $0 } }
}
