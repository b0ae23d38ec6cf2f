import CatalogStub
import PureTestSupport
import Testing
import TestSupport

/// `STUB_WORKERS` and `STUB_SERVICE_MS` over real sockets, on two loops sharing each route's
/// pool. Times are only ever lower bounds (a timer never fires early), and what must be seen
/// while it lasts is held for ten minutes, so nothing depends on how fast the host is.
@Suite struct StubWorkersTests {
    @Test func aRequestBeyondTheWorkersQueuesAndKeepsItsTurnWhenItsClientLeaves() async throws {
        try await withStub(loops: 2, configure: { $0.workersPerRoute = 2; $0.serviceTime = .seconds(600) }) { stub, port in
            var clients: [RawClient] = []
            for _ in 0..<3 {
                let client = try await RawClient.connect(port: port)
                try await client.sendRequest("/products/p1")
                clients.append(client)
            }
            await eventually(.live) { stub.stats().productWorkers == StubWorkerStats(workers: 2, busy: 2, queued: 1) }
            // Each route has workers of its own.
            let reviews = try await RawClient.connect(port: port)
            try await reviews.sendRequest("/products/p1/reviews")
            await eventually(.live) { stub.stats().reviewsWorkers == StubWorkerStats(workers: 2, busy: 1) }
            #expect(stub.stats().productWorkers.queued == 1)
            #expect(stub.stats().suggestedWorkers == StubWorkerStats(workers: 2))

            let control = try await RawClient.connect(port: port)
            let document = try #require(try await control.request("/stats").json() as? [String: Any])
            let workers = try #require(document["workers"] as? [String: [String: Int]])
            #expect(workers["product"] == ["workers": 2, "busy": 2, "queued": 1, "served": 0, "servedForGone": 0])
            #expect(workers["reviews"] == ["workers": 2, "busy": 1, "queued": 0, "served": 0, "servedForGone": 0])

            // Every client leaves; the handlers end, the work does not.
            for client in clients + [reviews] {
                #expect(try await client.hasPendingBytes() == false)
                client.close()
            }
            await eventually(.live) { stub.stats().abandoned == 4 }
            #expect(stub.stats().productWorkers == StubWorkerStats(workers: 2, busy: 2, queued: 1))
            #expect(stub.stats().reviewsWorkers == StubWorkerStats(workers: 2, busy: 1))
            // A newcomer waits behind the three.
            let late = try await RawClient.connect(port: port)
            try await late.sendRequest("/products/p2")
            await eventually(.live) { stub.stats().productWorkers.queued == 2 }
            late.close()
        }
    }

    @Test func nPlusOneRequestsOnNWorkersTakeTwoServiceTimesForTheLast() async throws {
        let service = Duration.milliseconds(100)
        try await withStub(loops: 2, configure: { $0.workersPerRoute = 2; $0.serviceTime = service }) { stub, port in
            var clients: [RawClient] = []
            for _ in 0..<3 { clients.append(try await RawClient.connect(port: port)) }
            let clock = ContinuousClock()
            let sent = clock.now
            for client in clients { try await client.sendRequest("/products/p3") }
            let elapsed = try await withThrowingTaskGroup(of: (Int, Duration).self) { group in
                for client in clients {
                    group.addTask {
                        let response = try await client.readResponse()
                        return (response.status, sent.duration(to: clock.now))
                    }
                }
                var elapsed: [Duration] = []
                for try await (status, time) in group {
                    #expect(status == 200)
                    elapsed.append(time)
                }
                return elapsed.sorted()
            }
            #expect(elapsed.count == 3)
            #expect(elapsed[0] >= service)
            #expect(elapsed[1] >= service)
            // Its worker was free one service time after the first came, at the soonest.
            #expect(elapsed[2] >= service * 2)
            #expect(stub.stats().productWorkers == StubWorkerStats(workers: 2, busy: 0, queued: 0, served: 3))
            #expect(stub.stats().product == 3)
            #expect(stub.stats().abandoned == 0)
        }
    }

    @Test func aClientGoneBeforeTheEndIsServedForNobody() async throws {
        // Four seconds of service: the client leaves as soon as its request is seen on a worker,
        // long before the end. With one second, a stall of this test that long in the parallel
        // suite let the service end first (seen once in a clean-clone run).
        try await withStub(configure: { $0.workersPerRoute = 1; $0.serviceTime = .seconds(4) }) { stub, port in
            let leaving = try await RawClient.connect(port: port)
            try await leaving.sendRequest("/products/p4/suggested")
            await eventually(.live) { stub.stats().suggestedWorkers.busy == 1 }
            leaving.close()
            await eventually(.live) { stub.stats().abandoned == 1 }
            #expect(stub.stats().suggestedWorkers == StubWorkerStats(workers: 1, busy: 1))
            // The next one waits for the whole second of the one nobody wants.
            let staying = try await RawClient.connect(port: port)
            #expect(try await staying.request("/products/p4/suggested").status == 200)
            #expect(stub.stats().suggestedWorkers == StubWorkerStats(workers: 1, served: 2, servedForGone: 1))
            stub.resetStats()
            #expect(stub.stats().suggestedWorkers == StubWorkerStats(workers: 1))
        }
    }

    @Test func withoutWorkersTheStatsStayEmpty() async throws {
        try await withStub { stub, port in
            let client = try await RawClient.connect(port: port)
            #expect(try await client.request("/products/p5").status == 200)
            #expect(stub.stats().productWorkers == StubWorkerStats())
            let document = try #require(try await client.request("/stats").json() as? [String: Any])
            let workers = try #require(document["workers"] as? [String: [String: Int]])
            #expect(workers["suggested"] == ["workers": 0, "busy": 0, "queued": 0, "served": 0, "servedForGone": 0])
        }
    }
}
