import EventLoop
import HTTP1
import HTTPServer
import Testing
import TestSupport

@Suite("HTTP server over real sockets")
struct ServerConnectionTests {
    @Test func keepAliveConnectionIsReused() async throws {
        try await withServer(routes: standardRoutes) { _, port in
            let client = try await RawClient.connect(port: port)
            for word in ["one", "two", "three"] {
                try await client.send("GET /echo/\(word) HTTP/1.1\r\nHost: t\r\n\r\n")
                let response = try await client.readResponse()
                #expect(response.status == 200)
                #expect(response.text == word)
                #expect(response.header("Connection") == nil)
                #expect(response.header("Date") != nil)
            }
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        let firstMayAnswer = Gate()
        try await withServer(routes: { router in
            standardRoutes(&router)
            router.add(.get, "/slow") { _, _ in
                await firstMayAnswer.wait()
                return .text(.ok, "slow")
            }
        }) { _, port in
            let client = try await RawClient.connect(port: port)
            try await client.send(
                "GET /slow HTTP/1.1\r\nHost: t\r\n\r\nGET /echo/b HTTP/1.1\r\nHost: t\r\n\r\nGET /echo/c HTTP/1.1\r\nHost: t\r\n\r\n")
            firstMayAnswer.open()
            let texts = [try await client.readResponse().text, try await client.readResponse().text, try await client.readResponse().text]
            #expect(texts == ["slow", "b", "c"])
        }
    }

    @Test func http10ClosesUnlessKeepAliveAsked() async throws {
        try await withServer(routes: standardRoutes) { _, port in
            let plain = try await RawClient.connect(port: port)
            try await plain.send("GET /hello HTTP/1.0\r\n\r\n")
            let first = try await plain.readResponse()
            #expect(first.status == 200)
            #expect(first.header("Connection") == "close")
            #expect(try await plain.readsEndOfStream())

            let kept = try await RawClient.connect(port: port)
            try await kept.send("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(try await kept.readResponse().header("Connection") == "keep-alive")
            try await kept.send("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(try await kept.readResponse().text == "hello")
        }
    }

    @Test func connectionCloseIsHonoured() async throws {
        try await withServer(routes: standardRoutes) { _, port in
            let client = try await RawClient.connect(port: port)
            try await client.send("GET /hello HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.header("Connection") == "close")
            #expect(try await client.readsEndOfStream())
        }
    }

    @Test func headAnswersHaveLengthButNoBody() async throws {
        try await withServer(routes: standardRoutes) { _, port in
            let client = try await RawClient.connect(port: port)
            try await client.send("HEAD /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            let head = try await client.readResponse(method: .head)
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == "5")
            #expect(head.body.isEmpty)
            // The next answer on the same connection starts right where the head ended.
            try await client.send("GET /echo/after HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try await client.readResponse().text == "after")
        }
    }

    @Test func expectContinueGetsAnInterimAnswer() async throws {
        try await withServer(routes: standardRoutes) { _, port in
            let client = try await RawClient.connect(port: port)
            try await client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
            let interim = try await client.readInterim()
            #expect(interim.hasPrefix("HTTP/1.1 100 Continue"))
            try await client.send("12345")
            let response = try await client.readResponse()
            #expect(response.text == "12345")
        }
    }

    @Test func chunkedRequestBodyIsDecoded() async throws {
        try await withServer(routes: standardRoutes) { _, port in
            let client = try await RawClient.connect(port: port)
            try await client.send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\nTrailer: 1\r\n\r\n")
            #expect(try await client.readResponse().text == "abcde")
        }
    }

    @Test func largeAnswersArriveWhole() async throws {
        try await withServer(routes: standardRoutes) { _, port in
            // Sanitizer builds on a busy machine need far longer than 10 s for 4 MiB.
            let client = try await RawClient.connect(port: port, readTimeoutSeconds: 120)
            let size = 4 * 1024 * 1024
            try await client.send("GET /big/\(size) HTTP/1.1\r\nHost: t\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.body.count == size)
            #expect(response.body.last == UInt8((size - 1) % 251))
            try await client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try await client.readResponse().text == "hello")
        }
    }

    @Test func unknownPathsAndMethodsGetProblems() async throws {
        try await withServer(routes: standardRoutes) { _, port in
            let client = try await RawClient.connect(port: port)
            try await client.send("DELETE /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            let notAllowed = try await client.readResponse()
            #expect(notAllowed.status == 405)
            #expect(notAllowed.header("Allow") == "GET, HEAD")
            #expect(notAllowed.header("Content-Type") == "application/problem+json")
            try await client.send("GET /missing HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try await client.readResponse().status == 404)
        }
    }

    @Test func handlersRunOnTheirConnectionsLoopThread() async throws {
        try await withServer(routes: { router in
            router.add(.get, "/where") { _, context in
                await Task.yield()
                return .text(.ok, EventLoop.current === context.loop ? "on-loop" : "elsewhere")
            }
        }) { _, port in
            for _ in 0..<4 {
                let client = try await RawClient.connect(port: port)
                try await client.send("GET /where HTTP/1.1\r\nHost: t\r\n\r\n")
                #expect(try await client.readResponse().text == "on-loop")
            }
        }
    }
}
