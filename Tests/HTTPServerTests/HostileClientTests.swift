import HTTP1
import HTTPServer
import Testing
import TestSupport

/// Requests an attacker would send. Each gets a correct status or a close, and the next client is
/// served normally.
@Suite("Hostile clients")
struct HostileClientTests {
    struct Attack: Sendable, CustomStringConvertible {
        let name: String
        let bytes: [UInt8]
        /// The status the server must answer with before closing; nil means it may just close.
        let status: Int?
        var description: String { name }
    }

    static let attacks: [Attack] = [
        Attack(name: "CL.TE smuggling", bytes: Array("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /hello HTTP/1.1\r\nHost: t\r\n\r\n".utf8), status: 400),
        Attack(name: "TE.TE obfuscated", bytes: Array("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: x\r\n\r\n0\r\n\r\n".utf8), status: 400),
        Attack(name: "two Content-Lengths", bytes: Array("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd".utf8), status: 400),
        Attack(name: "space before colon", bytes: Array("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length : 3\r\n\r\nabc".utf8), status: 400),
        Attack(name: "obs-fold", bytes: Array("GET /hello HTTP/1.1\r\nHost: t\r\nX-A: 1\r\n  folded\r\n\r\n".utf8), status: 400),
        Attack(name: "bare LF", bytes: Array("GET /hello HTTP/1.1\nHost: t\n\n".utf8), status: 400),
        Attack(name: "NUL in header", bytes: Array("GET /hello HTTP/1.1\r\nHost: t\r\nX-A: a\u{0}b\r\n\r\n".utf8), status: 400),
        Attack(name: "TLS ClientHello", bytes: [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03] + Array(repeating: 0x41, count: 64), status: 400),
        Attack(name: "HTTP/2 preface", bytes: Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8), status: 505),
        Attack(name: "garbage", bytes: (0..<256).map { UInt8(($0 * 37) % 256) }, status: 400),
        Attack(name: "huge chunk size", bytes: Array("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFF\r\n".utf8), status: 400),
        Attack(name: "oversized header section", bytes: Array(("GET /hello HTTP/1.1\r\nHost: t\r\n" + String(repeating: "X-Pad: \(String(repeating: "p", count: 100))\r\n", count: 400) + "\r\n").utf8), status: 431),
    ]

    @Test(arguments: attacks)
    func attackIsRefusedAndTheNextClientIsServed(_ attack: Attack) async throws {
        try await withServer(routes: standardRoutes) { _, port in
            let attacker = try await RawClient.connect(port: port)
            try await attacker.send(attack.bytes)
            if let status = attack.status {
                let response = try await attacker.readResponse()
                #expect(response.status == status)
                #expect(response.header("Connection") == "close")
            }
            #expect(try await attacker.readsEndOfStream())
            let next = try await RawClient.connect(port: port)
            try await next.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try await next.readResponse().text == "hello")
        }
    }

    /// A client that sends a request and half-closes (shuts down its writing side) gave up: the
    /// server may drop the answer, but must close and stay healthy.
    @Test func halfClosedClientIsClosed() async throws {
        try await withServer(routes: standardRoutes) { server, port in
            let client = try await RawClient.connect(port: port)
            try await client.send("GET /hello HTTP/1.1\r\nHost: t\r\n")
            client.shutdownWrite()
            #expect(try await client.readsEndOfStream())
            while server.openConnections > 0 { await Task.yield() }
        }
    }

    /// Header lines sent whole but slowly: the parser consumes each line, so nothing of the
    /// request stayed buffered and the connection counted as idle (the idle timeout, re-armed
    /// by every line) instead of as a request begun (the read timeout).
    @Test func wholeHeaderLinesSentSlowlyHitTheReadTimeout() async throws {
        try await withServer(configure: {
            $0.requestReadTimeout = .milliseconds(100)
            $0.idleTimeout = .seconds(600)
        }, routes: standardRoutes) { _, port in
            let client = try await RawClient.connect(port: port)
            try await client.send("GET /hello HTTP/1.1\r\nHost: t\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 408)
        }
    }

    /// Headers trickled one byte at a time cannot keep a connection past the read timeout.
    @Test func trickledHeadersHitTheReadTimeout() async throws {
        try await withServer(configure: { $0.requestReadTimeout = .milliseconds(200) }, routes: standardRoutes) { _, port in
            let client = try await RawClient.connect(port: port)
            let request = Array("GET /hello HTTP/1.1\r\nHost: t\r\nX-Slow: ".utf8)
            var timedOut = false
            for byte in request + Array(repeating: UInt8(ascii: "s"), count: 10_000) {
                do {
                    try await client.send([byte])
                } catch {
                    timedOut = true
                    break
                }
                if try await client.hasPendingBytes() {
                    timedOut = true
                    break
                }
            }
            #expect(timedOut)
            let response = try await client.readResponse()
            #expect(response.status == 408)
        }
    }
}
