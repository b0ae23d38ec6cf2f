import EventLoop
import HTTP1
import HTTPServer
import Locking
import PureTestSupport
import Testing
import TestSupport
import Timekeeping

@Suite("Graceful shutdown")
struct ServerShutdownTests {
    static let loopback: ServerConfiguration = {
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        return configuration
    }()

    /// `GET /slow` opens `started`, then answers `text` once `mayFinish` opens.
    static func slowRoute(_ router: inout TestRouter, started: Gate, mayFinish: Gate, text: String) {
        router.add(.get, "/slow") { _, _ in
            started.open()
            await mayFinish.wait()
            return .text(.ok, text)
        }
    }

    @Test func inFlightRequestFinishesAndNewConnectionsAreRefused() async throws {
        let handlerStarted = Gate()
        let handlerMayFinish = Gate()
        let configuration = Self.loopback
        var router = TestRouter()
        Self.slowRoute(&router, started: handlerStarted, mayFinish: handlerMayFinish, text: "finished")
        router.add(.get, "/ready") { _, _ in .text(.ok, "ready") }
        let routes = router
        let group = try EventLoopGroup(loopCount: 2)
        defer { group.shutdown() }
        let server = HTTPServer(group: group, configuration: configuration, responder: AttachedContext.responder { request, context in
            routes.respond(to: &request, context: &context)
        })
        let port = try await server.start()

        let busy = try await RawClient.connect(port: port)
        let idle = try await RawClient.connect(port: port)
        try await idle.send("GET /ready HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try await idle.readResponse().status == 200)
        try await busy.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
        await handlerStarted.wait()

        let shutdown = Task { await server.shutdown(grace: .seconds(30)) }
        #expect(try await idle.readsEndOfStream())
        #expect(server.isDraining)
        await #expect(throws: RawClientError.self) { _ = try await RawClient.connect(port: port) }

        handlerMayFinish.open()
        let answer = try await busy.readResponse()
        #expect(answer.text == "finished")
        #expect(answer.header("Connection") == "close")
        _ = await shutdown.value
        #expect(server.openConnections == 0)
    }

    /// A handler still running when its loops stop (an app stopping under a slow load) ends on
    /// some pool thread: it must neither touch its connection there nor keep its request slot.
    /// (It trapped: "LoopBound value read off its loop".)
    @Test func aHandlerOutlivingItsLoopsEndsQuietly() async throws {
        let handlerStarted = Gate()
        let handlerMayFinish = Gate()
        var router = TestRouter()
        Self.slowRoute(&router, started: handlerStarted, mayFinish: handlerMayFinish, text: "too late")
        let routes = router
        let group = try EventLoopGroup(loopCount: 1)
        let handlerReturned = Gate()
        let server = HTTPServer(group: group, configuration: Self.loopback) { _, _ in
            .later { (request, context: TestContext) in
                var request = request
                var context = context
                let response = await routes.respond(to: &request, context: &context).response(to: request, context: &context.core)
                handlerReturned.open()
                return response
            }
        }
        let port = try await server.start()
        let client = try await RawClient.connect(port: port)
        try await client.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
        await handlerStarted.wait()
        #expect(await server.shutdown(grace: .zero) == 1)
        group.shutdown()
        #expect(try await client.readResponse().status == 503)
        #expect(try await client.readsEndOfStream())
        handlerMayFinish.open()
        await handlerReturned.wait()
        // The handler's task goes on from `handlerReturned` to where it trapped, in the same job
        // and with nothing to observe; the yields let that job finish while the test still runs.
        // The connection's closing already gave the slot back; the late answer takes nothing.
        for _ in 0..<100 { await Task.yield() }
        #expect(server.inFlightRequests == 0)
        #expect(server.openConnections == 0)
    }

    /// Shuts `server` down with a 30 s grace period that passes at once on `time`, with one
    /// request still unanswered: the shutdown reports it, and `client` reads the 503 that closes
    /// its connection.
    static func answerAfterTheGracePeriod(_ server: HTTPServer, _ time: ManualTimeSource, _ client: RawClient) async throws -> TestResponse {
        let shutdown = Task { await server.shutdown(grace: .seconds(30)) }
        try #require(await time.waitForSleepers())
        time.advance(by: .seconds(30))
        #expect(await shutdown.value == 1)
        let answer = try await client.readResponse()
        #expect(answer.status == 503)
        #expect(answer.header("Connection") == "close")
        return answer
    }

    /// A request whose handler outlasts the grace period used to get an empty reply (curl: exit
    /// 52); it gets a 503 problem with `Connection: close`, and the observer sees that answer once
    /// (not the handler's late one too). The grace period passes on the server's time line.
    @Test func graceExpiryAnswersWhatIsLeft503AndClosesIt() async throws {
        let handlerStarted = Gate()
        let observed = Locked<[(Int, AnswerSource)]>([])
        let time = ManualTimeSource()
        try await withServer(time: time, routes: { router in
            router.add(.get, "/forever") { _, _ in
                handlerStarted.open()
                await Gate().wait()
                return .text(.ok, "never")
            }
        }, answered: { response, request in
            observed.withLock { $0.append((response.status.code, request.source)) }
        }) { server, port in
            let client = try await RawClient.connect(port: port)
            try await client.send("GET /forever HTTP/1.1\r\nHost: t\r\n\r\n")
            await handlerStarted.wait()
            let answer = try await ServerShutdownTests.answerAfterTheGracePeriod(server, time, client)
            #expect(answer.header("Content-Type") == "application/problem+json")
            #expect(answer.text.contains(#""status":503"#))
            #expect(try await client.readsEndOfStream())
            #expect(server.openConnections == 0)
        }
        let answers = observed.withLock { $0 }
        #expect(answers.count == 1)
        #expect(answers.first?.0 == 503)
        #expect(answers.first?.1 == .shutdown)
    }

    /// A request still arriving when the grace period ends (here its body) gets the same 503,
    /// with its request's head when that is in; it was closed with no answer.
    @Test func graceExpiryAnswersARequestStillArriving503() async throws {
        let observed = Locked<[(Int, String?, AnswerSource)]>([])
        let time = ManualTimeSource()
        try await withServer(time: time, routes: standardRoutes, answered: { response, request in
            observed.withLock { $0.append((response.status.code, request.head?.path, request.source)) }
        }) { server, port in
            let client = try await RawClient.connect(port: port)
            try await client.send("POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
            _ = try await client.readInterim()
            let shutdown = Task { await server.shutdown(grace: .seconds(30)) }
            try #require(await time.waitForSleepers())
            time.advance(by: .seconds(30))
            #expect(await shutdown.value == 1)
            let answer = try await client.readResponse(method: .post)
            #expect(answer.status == 503)
            #expect(answer.header("Connection") == "close")
            #expect(answer.header("Retry-After") == "1")
            #expect(try await client.readsEndOfStream())
        }
        let answers = observed.withLock { $0 }
        #expect(answers.count == 1)
        #expect(answers.first?.0 == 503)
        #expect(answers.first?.1 == "/echo")
        #expect(answers.first?.2 == .shutdown)
    }
}

/// A shutdown waits for the answers it gives to be written, but not for ever.
@Suite("Shutdown and clients that do not read")
struct ShutdownNonReadingClientTests {
    /// With the default write timeout (the idle timeout, a minute), the 503 written at the end of
    /// the grace period to a client that never reads held the shutdown that whole minute. It has
    /// `shutdownWriteTimeout` (default one second) instead. The idle timeout stays long: a short
    /// one closed the connection before its requests came when the host was loaded, and the test
    /// then waited for its handler for ever.
    @Test func afterTheGracePeriodAClientThatNeverReadsHoldsTheShutdownOnlyBriefly() async throws {
        let handlerStarted = Gate()
        try await withServer(configure: { $0.idleTimeout = .seconds(60) }, routes: { router in
            router.add(.get, "/huge") { _, _ in HTTPResponse(status: .ok, body: [UInt8](repeating: 0x61, count: 32 << 20)) }
            router.add(.get, "/forever") { _, _ in
                handlerStarted.open()
                await Gate().wait()
                return .text(.ok, "never")
            }
        }) { server, port in
            let client = try await RawClient.connect(port: port)
            defer { client.close() }
            try await client.send("GET /huge HTTP/1.1\r\nHost: t\r\n\r\nGET /forever HTTP/1.1\r\nHost: t\r\n\r\n")
            await handlerStarted.wait()
            let started = ContinuousClock.now
            // Ends a shutdown that hangs, so a failure does not hang the suite.
            let watchdog = Task {
                try await Task.sleep(for: .seconds(20))
                client.close()
            }
            let cutShort = await server.shutdown(grace: .zero)
            let took = ContinuousClock.now - started
            watchdog.cancel()
            #expect(cutShort == 1)
            // Well under the idle timeout and the watchdog, well over the one second.
            #expect(took < .seconds(15))
        }
    }
}

@Suite("Shutdown answers what it already received")
struct ShutdownPipelineTests {
    @Test func pipelinedRequestsReceivedBeforeShutdownAreAnswered() async throws {
        let handlerStarted = Gate()
        let handlerMayFinish = Gate()
        try await withServer(routes: { router in
            standardRoutes(&router)
            router.add(.get, "/slow") { _, _ in
                handlerStarted.open()
                await handlerMayFinish.wait()
                return .text(.ok, "slow")
            }
        }) { server, port in
            let client = try await RawClient.connect(port: port)
            try await client.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\nGET /echo/second HTTP/1.1\r\nHost: t\r\n\r\n")
            await handlerStarted.wait()
            let shutdown = Task { await server.shutdown(grace: .seconds(30)) }
            while !server.isDraining { await Task.yield() }
            handlerMayFinish.open()
            let first = try await client.readResponse()
            let second = try await client.readResponse()
            #expect(first.text == "slow")
            #expect(first.header("Connection") == nil)
            #expect(second.text == "second")
            #expect(second.header("Connection") == "close")
            #expect(try await client.readsEndOfStream())
            _ = await shutdown.value
        }
    }

    /// A request whose head had begun arriving (its lines consumed, nothing left buffered) when
    /// the shutdown began is answered like any request received; it was closed unanswered.
    @Test func aRequestWhoseHeadHadBegunIsAnswered() async throws {
        let time = ManualTimeSource()
        try await withServer(time: time, routes: standardRoutes) { server, port in
            let client = try await RawClient.connect(port: port)
            // Parsed in the read that answers /echo/1, so before the shutdown's drain.
            try await client.send("GET /echo/1 HTTP/1.1\r\nHost: t\r\n\r\nGET /echo/2 HTTP/1.1\r\nHost: t\r\n")
            #expect(try await client.readResponse().text == "1")
            let shutdown = Task { await server.shutdown(grace: .seconds(30)) }
            // The grace period begins once every connection was told to drain; a shutdown that
            // closed this one has none.
            await eventually(.live) { time.sleeperCount > 0 || server.openConnections == 0 }
            try await client.send("\r\n")
            let second = try await client.readResponse()
            #expect(second.text == "2")
            #expect(second.header("Connection") == "close")
            #expect(try await client.readsEndOfStream())
            #expect(await shutdown.value == 0)
        }
    }

    /// An answer given before the shutdown, still queued because the client had not read it yet,
    /// reaches the client whole before the connection closes; the drain took the connection for
    /// idle and closed it at once, which discarded the rest of the answer.
    @Test func anAnswerStillQueuedWhenTheDrainBeginsIsWrittenWhole() async throws {
        let size = 8 << 20
        let answered = Gate()
        let time = ManualTimeSource()
        try await withServer(loops: 1, time: time, routes: { router in
            router.add(.get, "/huge") { _, _ in HTTPResponse(status: .ok, body: [UInt8](repeating: 0x61, count: size)) }
        }, answered: { _, _ in answered.open() }) { server, port in
            let client = try await RawClient.connect(port: port)
            defer { client.close() }
            try await client.send("GET /huge HTTP/1.1\r\nHost: t\r\n\r\n")
            // The observer sees the answer on the loop just before it is written, in the same
            // job: a job queued on the loop after that runs once the answer is written (kept
            // alive, since the shutdown has not begun) and mostly queued: more than the socket
            // buffers hold.
            await answered.wait()
            await Task(executorPreference: server.group.loops[0]) {}.value
            let shutdown = Task { await server.shutdown(grace: .seconds(30)) }
            // The grace period begins once every connection was told to drain; a shutdown that
            // closed this one has none.
            await eventually(.live) { time.sleeperCount > 0 || server.openConnections == 0 }
            let answer = try await client.readResponse()
            #expect(answer.status == 200)
            #expect(answer.body.count == size)
            #expect(answer.body.allSatisfy { $0 == 0x61 })
            #expect(try await client.readsEndOfStream())
            #expect(await shutdown.value == 0)
        }
    }

    @Test func drainingBeforeTheListenersCloseStillAcceptsButClosesAfterEachAnswer() async throws {
        try await withServer(routes: { router in
            standardRoutes(&router)
        }) { server, port in
            server.beginDraining()
            let client = try await RawClient.connect(port: port)
            try await client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            let answer = try await client.readResponse()
            #expect(answer.text == "hello")
            #expect(answer.header("Connection") == "close")
            #expect(try await client.readsEndOfStream())
        }
    }
}
