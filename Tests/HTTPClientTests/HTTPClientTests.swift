import EventLoop
import HTTP1
import HTTPClient
import HTTPServer
import Locking
import PureTestSupport
import Testing
import TestSupport
import Timekeeping

@Suite("HTTP client over real sockets")
struct HTTPClientTests {
    @Test func getReturnsTheWholeAnswer() async throws {
        try await withServer(routes: standardRoutes) { _, port in
            let group = try EventLoopGroup(loopCount: 1)
            defer { group.shutdown() }
            let client = HTTPClient(group: group)
            let response = try await client.get(Origin(host: "127.0.0.1", port: port), path: "/echo/hi", timeout: .seconds(5))
            #expect(response.status.code == 200)
            #expect(response.body == Array("hi".utf8))
            #expect(response.headers["Content-Type"] == "text/plain; charset=utf-8")
            await client.shutdown()
        }
    }

    @Test func sequentialRequestsReuseOneConnection() async throws {
        try await withServer(routes: standardRoutes) { _, port in
            let group = try EventLoopGroup(loopCount: 1)
            defer { group.shutdown() }
            let client = HTTPClient(group: group)
            let origin = try Origin(url: "http://localhost:\(port)")
            for index in 0..<20 {
                let response = try await client.get(origin, path: "/echo/\(index)", timeout: .seconds(5))
                #expect(response.body == Array("\(index)".utf8))
            }
            #expect(client.statistics.connectionsOpened == 1)
            #expect(client.statistics.requestsSent == 20)
            await client.shutdown()
        }
    }

    @Test func concurrentRequestsStayWithinThePoolCap() async throws {
        let release = Gate()
        try await withServer(routes: { addHeldRoute(&$0, until: release) }) { server, port in
            let (group, client) = try clientWithSmallPools(connections: 2)
            defer { group.shutdown() }
            let origin = Origin(host: "127.0.0.1", port: port)
            try await withThrowingTaskGroup(of: String.self) { tasks in
                for index in 0..<10 {
                    tasks.addTask {
                        String(decoding: try await client.get(origin, path: "/held/\(index)", timeout: .seconds(10)).body, as: UTF8.self)
                    }
                }
                while server.openConnections < 2 { await Task.yield() }
                await eventually(.live) { client.statistics.waitingRequests == 8 }
                release.open()
                var answers: Set<String> = []
                for try await answer in tasks { answers.insert(answer) }
                #expect(answers == Set((0..<10).map(String.init)))
            }
            #expect(client.statistics.waitingRequests == 0)
            #expect(client.statistics.connectionsOpened == 2)
            #expect(client.statistics.peakOpenConnections == 2)
            await client.shutdown()
            // Shut down, the idle sockets close, and their close callbacks come on the loop.
            while client.statistics.openConnections > 0 { await Task.yield() }
        }
    }

    /// Three upstreams often share one origin: a pool full of hung reviews calls, with more
    /// queued behind them, must not hold up a products call to that origin.
    @Test func aHungPoolDoesNotDelayAnotherPoolToTheSameOrigin() async throws {
        let arrived = Gate()
        try await withServer(routes: { router in
            standardRoutes(&router)
            router.add(.get, "/hang") { _, _ in
                arrived.open()
                await Gate().wait()
                return .text(.ok, "never")
            }
        }) { _, port in
            let (group, client) = try clientWithSmallPools(connections: 1)
            defer { group.shutdown() }
            let origin = Origin(host: "127.0.0.1", port: port)
            let hung = Task { try await client.get(origin, pool: "reviews", path: "/hang", timeout: .seconds(60)) }
            await arrived.wait()
            let queued = Task { try await client.get(origin, pool: "reviews", path: "/hang", timeout: .seconds(60)) }
            await eventually(.live) { client.statistics.waitingRequests == 1 }
            // Within its own deadline, far below the hung calls' (shared, it would wait for them).
            let response = try await client.get(origin, pool: "products", path: "/echo/fast", timeout: .seconds(10))
            #expect(response.body == Array("fast".utf8))
            #expect(client.statistics.connectionsOpened == 2)
            #expect(client.statistics.waitingRequests == 1, "the reviews call still waits for its own pool")
            hung.cancel()
            queued.cancel()
            _ = await (hung.result, queued.result)
            await client.shutdown()
        }
    }

    /// The breaker of "reviews" opens: the reviews calls queued on each loop, to each origin,
    /// fail at once, long before their deadlines and without being sent; the calls in flight, and
    /// another pool's queue on the same origin, go on.
    @Test func failQueuedFailsThePoolsWaitingRequestsAndNothingElse() async throws {
        let arrivals = Locked(0)
        let release = Gate()
        try await withServer(routes: { router in
            addHeldRoute(&router, until: release) { arrivals.withLock { $0 += 1 } }
        }) { _, port in
            let (group, client) = try clientWithSmallPools(loops: 2, connections: 1)
            defer { group.shutdown() }
            // A base path makes a second origin of the same server.
            let origins = [(Origin(host: "127.0.0.1", port: port), "/held/"), (Origin(host: "127.0.0.1", port: port, basePath: "/held"), "/")]
            func call(on loop: EventLoop, _ target: (Origin, String), pool: String, _ word: String) -> Task<String, any Error> {
                Task(executorPreference: loop) {
                    let response = try await client.get(target.0, pool: pool, path: target.1 + word, timeout: .seconds(60))
                    return String(decoding: response.body, as: UTF8.self)
                }
            }
            var inFlight: [(Task<String, any Error>, String)] = []
            var queued: [Task<String, any Error>] = []
            for (index, loop) in group.loops.enumerated() {
                inFlight.append((call(on: loop, origins[index], pool: "reviews", "r\(index)"), "r\(index)"))
                await eventually(.live) { arrivals.withLock { $0 } == index + 1 }
                queued.append(call(on: loop, origins[index], pool: "reviews", "late"))
            }
            inFlight.append((call(on: group.loops[0], origins[0], pool: "products", "p"), "p"))
            await eventually(.live) { arrivals.withLock { $0 } == 3 }
            let productsQueued = call(on: group.loops[0], origins[0], pool: "products", "queued")
            await eventually(.live) { client.statistics.waitingRequests == 3 }

            client.failQueued(pool: "reviews")
            for call in queued {
                await #expect(throws: HTTPClientError(.dropped, "")) { _ = try await call.value }
            }
            #expect(client.statistics.waitingRequests == 1, "the products call still waits")
            #expect(client.statistics.requestsSent == 3)

            release.open()
            for (call, word) in inFlight { #expect(try await call.value == word) }
            #expect(try await productsQueued.value == "queued")
            #expect(arrivals.withLock { $0 } == 4)
            await client.shutdown()
        }
    }

    @Test func aHungUpstreamTimesOutAndItsConnectionIsClosed() async throws {
        try await withServer(routes: addHangingRoute) { server, port in
            let group = try EventLoopGroup(loopCount: 1)
            defer { group.shutdown() }
            let client = HTTPClient(group: group)
            await #expect(throws: HTTPClientError(.timedOut, "")) {
                _ = try await client.get(Origin(host: "127.0.0.1", port: port), path: "/hang", timeout: .milliseconds(100))
            }
            while server.openConnections > 0 { await Task.yield() }
            while client.statistics.openConnections > 0 { await Task.yield() }
            await client.shutdown()
        }
    }

    /// The pool's idle rule reads the client's time line: frozen, a parked connection stays
    /// (its timer fires on real time and finds no idle time passed) and is reused; moved past
    /// the idle timeout, the connection closes and the next call opens another. The rule itself
    /// (exactly the timeout since last parked, never while in use) is stepped in
    /// ClientConnectionStateMachineTests.
    @Test func aPooledConnectionClosesOnceIdleForTheTimeoutOnTheClientsTimeLine() async throws {
        try await withServer(routes: standardRoutes) { _, port in
            let group = try EventLoopGroup(loopCount: 1)
            defer { group.shutdown() }
            let time = ManualTimeSource()
            var configuration = HTTPClientConfiguration()
            configuration.idleTimeout = .milliseconds(20)
            let client = HTTPClient(group: group, configuration: configuration, time: time)
            let origin = Origin(host: "127.0.0.1", port: port)
            _ = try await client.get(origin, path: "/echo/one", timeout: .seconds(5))
            _ = try await client.get(origin, path: "/echo/two", timeout: .seconds(5))
            #expect(client.statistics.connectionsOpened == 1)
            time.advance(by: .milliseconds(20))
            while client.statistics.openConnections > 0 { await Task.yield() }
            _ = try await client.get(origin, path: "/echo/again", timeout: .seconds(5))
            #expect(client.statistics.connectionsOpened == 2)
            await client.shutdown()
        }
    }

    /// Deadline timers are reused from call to call: each call must get its own deadline and
    /// callback, and a finished call's must not reach the next one.
    @Test func eachCallOnAReusedTimerKeepsItsOwnDeadline() async throws {
        try await withServer(routes: { router in
            standardRoutes(&router)
            addHangingRoute(&router)
        }) { _, port in
            let group = try EventLoopGroup(loopCount: 1)
            defer { group.shutdown() }
            let client = HTTPClient(group: group)
            let origin = Origin(host: "127.0.0.1", port: port)
            let first = try await client.get(origin, path: "/echo/first", timeout: .seconds(3600))
            #expect(first.body == Array("first".utf8))
            await #expect(throws: HTTPClientError(.timedOut, "")) {
                _ = try await client.get(origin, path: "/hang", timeout: .milliseconds(100))
            }
            for index in 0..<3 {
                let response = try await client.get(origin, path: "/echo/\(index)", timeout: .seconds(3600))
                #expect(response.body == Array("\(index)".utf8))
            }
            await client.shutdown()
        }
    }

    @Test func cancellingTheCallerAbandonsTheRequest() async throws {
        let arrived = Gate()
        try await withServer(routes: { router in
            router.add(.get, "/hang") { _, _ in
                arrived.open()
                await Gate().wait()
                return .text(.ok, "never")
            }
        }) { server, port in
            let group = try EventLoopGroup(loopCount: 1)
            defer { group.shutdown() }
            let client = HTTPClient(group: group)
            let call = Task {
                try await client.get(Origin(host: "127.0.0.1", port: port), path: "/hang", timeout: .seconds(60))
            }
            await arrived.wait()
            call.cancel()
            await #expect(throws: HTTPClientError(.cancelled, "")) { _ = try await call.value }
            while server.openConnections > 0 { await Task.yield() }
            await client.shutdown()
        }
    }

    /// A load still running when the app's loops stop may try one more request: it must fail as
    /// a shut-down client, not run the pool's loop-confined code on a pool thread (it trapped:
    /// "LoopLocal used off its loop").
    @Test func requestsAfterTheLoopsStoppedFailAsShutdown() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let client = HTTPClient(group: group)
        group.shutdown()
        await #expect(throws: HTTPClientError(.shutdown, "")) {
            _ = try await client.get(Origin(host: "127.0.0.1", port: 9), path: "/", timeout: .seconds(5))
        }
    }

    @Test func refusedConnectionsFailFast() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let client = HTTPClient(group: group)
        let closedPort = try ScriptedServer(scripts: []).port
        await #expect(throws: HTTPClientError(.connectFailed, "")) {
            _ = try await client.get(Origin(host: "127.0.0.1", port: closedPort), path: "/", timeout: .seconds(5))
        }
        // The refused socket is counted while it existed and closed before the failure came back.
        #expect(client.statistics.peakOpenConnections == 1)
        #expect(client.statistics.openConnections == 0)
    }

    @Test func aReusedConnectionClosedBeforeAnsweringIsRetriedOnAFreshOne() async throws {
        let server = try ScriptedServer(scripts: [
            [.readRequest, .write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst"), .readRequest, .close],
            [.readRequest, .write("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecond")],
        ])
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let client = HTTPClient(group: group)
        let origin = Origin(host: "127.0.0.1", port: server.port)
        #expect(try await client.get(origin, path: "/", timeout: .seconds(5)).body == Array("first".utf8))
        #expect(try await client.get(origin, path: "/", timeout: .seconds(5)).body == Array("second".utf8))
        #expect(client.statistics.connectionsOpened == 2)
    }

    @Test func malformedAnswersFail() async throws {
        let server = try ScriptedServer(scripts: [[.readRequest, .write("HTTP/1.1 2OO OK\r\n\r\n")]])
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let client = HTTPClient(group: group)
        await #expect(throws: HTTPClientError(.malformedResponse, "")) {
            _ = try await client.get(Origin(host: "127.0.0.1", port: server.port), path: "/", timeout: .seconds(5))
        }
    }

    @Test func answerCutShortIsAReset() async throws {
        let server = try ScriptedServer(scripts: [[.readRequest, .write("HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nonly part"), .close]])
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let client = HTTPClient(group: group)
        await #expect(throws: HTTPClientError(.connectionReset, "")) {
            _ = try await client.get(Origin(host: "127.0.0.1", port: server.port), path: "/", timeout: .seconds(5))
        }
    }

    @Test func chunkedAndCloseDelimitedAnswersAreRead() async throws {
        let server = try ScriptedServer(scripts: [
            [.readRequest, .write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"), .readRequest,
             .write("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil close"), .close],
        ])
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let client = HTTPClient(group: group)
        let origin = Origin(host: "127.0.0.1", port: server.port)
        #expect(try await client.get(origin, path: "/", timeout: .seconds(5)).body == Array("abc".utf8))
        #expect(try await client.get(origin, path: "/", timeout: .seconds(5)).body == Array("until close".utf8))
    }

    @Test(arguments: [
        ("http://catalog:8081", "catalog", 8081, ""),
        ("http://127.0.0.1:9/api/", "127.0.0.1", 9, "/api"),
        ("http://example", "example", 80, ""),
        ("http://[::1]:8081", "::1", 8081, ""),
    ])
    func originsParse(_ url: String, _ host: String, _ port: Int, _ base: String) throws {
        let origin = try Origin(url: url)
        #expect(origin.host == host && origin.port == port && origin.basePath == base)
    }

    @Test(arguments: ["https://secure", "ftp://x", "http://:80", "http://host:99999", "http://user@host"])
    func unusableURLsAreRefused(_ url: String) {
        #expect(throws: HTTPClientError(.unsupportedURL, "")) { _ = try Origin(url: url) }
    }
}

/// A client on loops of its own, with at most `connections` per pool and loop; the caller shuts
/// the group down.
private func clientWithSmallPools(loops: Int = 1, connections: Int) throws -> (EventLoopGroup, HTTPClient) {
    let group = try EventLoopGroup(loopCount: loops)
    var configuration = HTTPClientConfiguration()
    configuration.maxConnectionsPerPool = connections
    return (group, HTTPClient(group: group, configuration: configuration))
}

/// `GET /held/{n}`: answers `n` once `release` opens; `arrived` runs as each request comes in.
private func addHeldRoute(_ router: inout TestRouter, until release: Gate, arrived: @escaping @Sendable () -> Void = {}) {
    router.add(.get, "/held/{n}") { request, _ in
        arrived()
        await release.wait()
        return .text(.ok, request.pathParameters["n"] ?? "")
    }
}

/// `GET /hang`: an upstream that never answers.
private func addHangingRoute(_ router: inout TestRouter) {
    router.add(.get, "/hang") { _, _ in
        await Gate().wait()
        return .text(.ok, "never")
    }
}
