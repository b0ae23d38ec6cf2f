import EventLoop
import HTTP1
import HTTPServer
import Testing
import TestSupport

@Suite("Graceful shutdown")
struct ServerShutdownTests {
    @Test func inFlightRequestFinishesAndNewConnectionsAreRefused() async throws {
        let handlerStarted = Gate()
        let handlerMayFinish = Gate()
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        var router = Router()
        router.add(.get, "/slow") { _, _ in
            handlerStarted.open()
            await handlerMayFinish.wait()
            return .text(.ok, "finished")
        }
        router.add(.get, "/ready") { _, _ in .text(.ok, "ready") }
        let routes = router
        let group = try EventLoopGroup(loopCount: 2)
        defer { group.shutdown() }
        let server = HTTPServer(group: group, configuration: configuration) { request, context in
            await routes.respond(to: request, context: context)
        }
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
        await shutdown.value
        #expect(server.openConnections == 0)
    }

    @Test func graceExpiryClosesWhatIsLeft() async throws {
        let handlerStarted = Gate()
        try await withServer(routes: { router in
            router.add(.get, "/forever") { _, _ in
                handlerStarted.open()
                await Gate().wait()
                return .text(.ok, "never")
            }
        }) { server, port in
            let client = try await RawClient.connect(port: port)
            try await client.send("GET /forever HTTP/1.1\r\nHost: t\r\n\r\n")
            await handlerStarted.wait()
            await server.shutdown(grace: .milliseconds(50))
            #expect(try await client.readsEndOfStream())
            #expect(server.openConnections == 0)
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
            await shutdown.value
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
