import EventLoop
import PureTestSupport
import RESP
import Redis
import Testing
import TestSupport
import Timekeeping

/// The client against a real `redis-server` on a free loopback port. Exact timing rules are the
/// state machine's, tested on a manual clock (Tests/RedisTests/Unit); these check that the shell
/// carries them out over real sockets, with generous bounds.
@Suite("Redis client against a real Redis", .timeLimit(.minutes(1)))
struct RedisClientLiveTests {
    @Test func thousandsOfConcurrentCommandsFromSeveralTasksOnTwoLoopsEachGetTheirOwnReply() async throws {
        let redis = try RedisClientHarness(configuration: .init(
            connectTimeout: .seconds(10), unansweredReplyLimit: .seconds(30), maxPendingCommands: 4096))
        await redis.discovered()
        let perTask = 400
        let answered = try await withThrowingTaskGroup(of: Int.self) { tasks in
            // Two tasks on each loop, and one off the loops (it uses the first loop's connection).
            for caller in 0..<5 {
                tasks.addTask {
                    let body: @Sendable () async throws -> Int = {
                        try await withThrowingTaskGroup(of: Bool.self) { commands in
                            for index in 0..<perTask {
                                commands.addTask {
                                    let payload = "caller\(caller)-command\(index)"
                                    return try await redis.run("ECHO", .string(payload)).string == payload
                                }
                            }
                            return try await commands.reduce(0) { $0 + ($1 ? 1 : 0) }
                        }
                    }
                    return caller < 4 ? try await redis.onLoop(caller % 2, body) : try await body()
                }
            }
            return try await tasks.reduce(0, +)
        }
        #expect(answered == 5 * perTask)
        #expect(redis.observer.outcomes.count == 5 * perTask)
        #expect(redis.observer.outcomes.allSatisfy { $0 == .reply })
        #expect(redis.observer.changes.contains(.connected(.command(loopIndex: 0))))
        #expect(redis.observer.changes.contains(.connected(.command(loopIndex: 1))))
        await redis.close()
    }

    /// Commands that tasks on one loop submit in the same turn leave together, behind the jobs
    /// that submitted them, in writes of at most `writesPerFlush` commands.
    @Test func commandsSubmittedInOneTurnOfTheLoopLeaveInFewWrites() async throws {
        let redis = try RedisClientHarness(loops: 1)
        await redis.discovered()
        let count = 50
        let answered = try await redis.onLoop(0) {
            try await withThrowingTaskGroup(of: Bool.self) { commands in
                for index in 0..<count {
                    commands.addTask { try await redis.run("ECHO", .string("c\(index)")).string == "c\(index)" }
                }
                return try await commands.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
        }
        #expect(answered == count)
        let writes = redis.observer.writes
        #expect(writes.reduce(0, +) == count)
        #expect(writes.count <= 3, "\(writes)")
        #expect(writes.allSatisfy { $0 <= 32 }, "\(writes)")
        await redis.close()
    }

    @Test func theDatabaseOfTheURLIsSelected() async throws {
        let redis = try RedisClientHarness(url: { RedisURL(host: "127.0.0.1", port: $0.port, database: 3) })
        #expect(try await redis.run("SET", "selected", "three").string == "OK")
        #expect(try await redis.onLoop(1) { try await redis.run("SET", "other-loop", "three").string } == "OK")
        let raw = try RawRedis(redis.server)
        #expect(try await raw.call("GET", "selected").isNull, "not in database 0")
        #expect(try await raw.call("SELECT", 3).string == "OK")
        #expect(try await raw.call("GET", "selected").string == "three")
        #expect(try await raw.call("GET", "other-loop").string == "three")
        await redis.close()
    }

    @Test func aHostNameIsResolved() async throws {
        let redis = try RedisClientHarness(loops: 1, url: { RedisURL(host: "localhost", port: $0.port) })
        #expect(try await redis.run("PING").string == "PONG")
        await redis.close()
    }

    @Test func theRightPasswordLogsIn() async throws {
        let redis = try RedisClientHarness(password: "s3cret")
        #expect(try await redis.run("PING").string == "PONG")
        #expect(redis.client.isConnected)
        await redis.close()
    }

    @Test func aWrongPasswordFailsEveryCommandAndIsNotRetried() async throws {
        let redis = try RedisClientHarness(
            password: "s3cret", url: { RedisURL(host: "127.0.0.1", port: $0.port, password: "wrong") })
        await #expect(throws: RedisClientError.authenticationFailed) { try await redis.run("PING") }
        await eventually(.live, "both connections refused") {
            redis.observer.changes.filter { if case .connectAttemptFailed = $0 { true } else { false } }.count == 2
        }
        // Refused for good: later commands fail at once, not at their deadline, and no
        // connection is attempted again. The bound is a sixth of the deadline, generous for a
        // loaded or sanitized host.
        let (result, took) = await elapsed { await redis.outcome("PING", budget: .seconds(60)) }
        #expect(throws: RedisClientError.authenticationFailed) { try result.get() }
        #expect(took < .seconds(10))
        let raw = try RawRedis(redis.server)
        _ = try await raw.call("AUTH", "s3cret")
        let connections = try await raw.info("total_connections_received")
        // Ten times the first backoff's ceiling: a retrying client would have come back by now.
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await raw.info("total_connections_received") == connections)
        #expect(redis.observer.changes.count == 2, "no reconnect storm: \(redis.observer.changes)")
        #expect(!redis.client.isConnected)
        await redis.close()
    }

    /// A server that wants a password REDIS_URL does not give: every connection says so at
    /// connect (before any command), as a refused `AUTH` does, and is not retried.
    @Test func aMissingPasswordIsReportedAtConnectByEveryConnection() async throws {
        let redis = try RedisClientHarness(password: "s3cret", url: { RedisURL(host: "127.0.0.1", port: $0.port) })
        await eventually(.live, "both connections refused at connect") {
            redis.observer.changes.filter {
                if case .connectAttemptFailed(_, let error) = $0 { error == .authenticationFailed } else { false }
            }.count == 2
        }
        #expect(!redis.observer.changes.contains { if case .connected = $0 { true } else { false } }, "never counted as connected")
        await #expect(throws: RedisClientError.authenticationFailed) { try await redis.run("PING") }
        await redis.close()
    }

    @Test func aScriptStillRunsAfterRedisForgetsIt() async throws {
        let redis = try RedisClientHarness()
        let script = RedisScript("return redis.call('INCRBY', KEYS[1], ARGV[1])")
        let request = RedisRequest.script(script, keys: ["counter"], arguments: [5])
        #expect(try await redis.client.run(request, deadline: redis.deadline()).integer == 5)
        let raw = try RawRedis(redis.server)
        #expect(try await raw.call("SCRIPT", "FLUSH").string == "OK")
        #expect(try await raw.call("SCRIPT", "EXISTS", .string(script.sha1)).elements?.first?.integer == 0)
        #expect(try await redis.client.run(request, deadline: redis.deadline()).integer == 10)
        #expect(try await raw.call("SCRIPT", "EXISTS", .string(script.sha1)).elements?.first?.integer == 1, "reloaded by EVAL")
        await redis.close()
    }

    @Test func errorRepliesAreReturnedNotThrown() async throws {
        let redis = try RedisClientHarness()
        await redis.discovered()
        #expect(try await redis.run("SET", "text", "x").string == "OK")
        #expect(try await redis.run("INCR", "text").errorCode == "ERR")
        #expect(redis.observer.outcomes == [.reply, .errorReply])
        #expect(redis.observer.clusterEvents == [.single])
        await redis.close()
    }

    @Test func aKilledRedisFailsCallersFastAndARestartedOneServesAgain() async throws {
        let redis = try RedisClientHarness()
        #expect(try await redis.run("PING").string == "PONG")
        #expect(try await redis.onLoop(1) { try await redis.run("PING").string } == "PONG")
        redis.server.stop()
        await eventually(.live, "both connections noticed") { !redis.client.isConnected }
        let fast: [RedisClientError] = [.notConnected, .connectionLost, .connectFailed]
        for loop in 0..<2 {
            let (result, took) = try await redis.onLoop(loop) { await elapsed { await redis.outcome("PING", budget: .seconds(20)) } }
            #expect(throws: RedisClientError.self) { try result.get() }
            if case .failure(let error) = result { #expect(fast.contains(error), "\(error)") }
            #expect(took < .seconds(5), "long before the deadline")
        }
        #expect(redis.observer.changes.contains { if case .disconnected(.command(0), .connectionLost) = $0 { true } else { false } })
        // Reconnecting waits a jittered pause first, which may not have ended by now.
        await eventually(.live, "a reconnect attempt failed") {
            redis.observer.changes.contains { if case .connectAttemptFailed(.command, .connectFailed) = $0 { true } else { false } }
        }

        try redis.server.restart()
        for loop in 0..<2 {
            await eventually(.live, "loop \(loop) reconnected") {
                (try? await redis.onLoop(loop) { try await redis.run("PING", budget: .seconds(1)).string }) == "PONG"
            }
        }
        #expect(redis.client.isConnected)
        await redis.close()
    }

    @Test func aFrozenRedisFailsCommandsAtTheirDeadlineAndThePipelineStaysInOrderAfterwards() async throws {
        // The limit is far away: the connection keeps waiting for the late replies instead of closing.
        let redis = try RedisClientHarness(loops: 1)
        #expect(try await redis.run("PING").string == "PONG")
        redis.server.freeze()
        let late = await withTaskGroup(of: (Result<RESPValue, RedisClientError>, Duration).self) { group in
            for index in 0..<5 {
                group.addTask { await elapsed { await redis.outcome("ECHO", .string("late\(index)"), budget: .milliseconds(300)) } }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(late.allSatisfy { if case .failure(.timedOut) = $0.0 { true } else { false } })
        #expect(late.allSatisfy { $0.1 >= .milliseconds(300) && $0.1 < .seconds(5) })
        #expect(redis.observer.outcomes.filter { $0 == .timedOut }.count == 5)
        redis.server.thaw()
        // The five late replies are read and dropped; each new caller gets its own.
        for index in 0..<5 {
            #expect(try await redis.run("ECHO", .string("fresh\(index)")).string == "fresh\(index)")
        }
        #expect(!redis.observer.changes.contains { if case .disconnected = $0 { true } else { false } })
        await redis.close()
    }

    @Test func aFrozenRedisIsJudgedDeadAfterTheUnansweredLimitAndServesAgainAfterThaw() async throws {
        let redis = try RedisClientHarness(loops: 1, configuration: .init(connectTimeout: .seconds(10), unansweredReplyLimit: .milliseconds(500)))
        // Retried: on a busy machine even a healthy server may miss so short a limit once.
        await eventually(.live, "connected") { (try? await redis.run("PING").string) == "PONG" }
        redis.server.freeze()
        let frozen = await redis.outcome("PING", budget: .milliseconds(200))
        #expect(throws: RedisClientError.timedOut) { try frozen.get() }
        await eventually(.live, "the silent connection was closed") {
            redis.observer.changes.contains(.disconnected(.command(loopIndex: 0), .unresponsive))
        }
        redis.server.thaw()
        await eventually(.live, "serving again") {
            (try? await redis.run("ECHO", "back", budget: .milliseconds(500)).string) == "back"
        }
        await redis.close()
    }

    @Test func aCancelledCallerLeavesAtOnceAndItsReplyIsDropped() async throws {
        // BLPOP stays unanswered: the (patient) limit must not close the connection meanwhile.
        let redis = try RedisClientHarness(loops: 1)
        let raw = try RawRedis(redis.server)
        let blocked = try await redis.blockedPop(seenBy: raw)
        blocked.cancel()
        let (outcome, cancelTook) = await elapsed { await blocked.result }
        #expect(throws: RedisClientError.cancelled) { try outcome.get() }
        #expect(cancelTook < .seconds(5))
        // The BLPOP's reply comes once something is pushed, and is dropped: ECHO gets its own.
        let echo = Task { try await redis.run("ECHO", "after") }
        #expect(try await raw.call("LPUSH", "queue", "item").integer == 1)
        #expect(try await echo.value.string == "after")
        #expect(try await raw.call("LLEN", "queue").integer == 0, "the cancelled BLPOP still ran")
        #expect(redis.observer.outcomes.contains(.failed(.cancelled)))
        await redis.close()
    }

    @Test func shutdownWaitsForAWrittenCommandsReply() async throws {
        let redis = try RedisClientHarness(loops: 1)
        let raw = try RawRedis(redis.server)
        let blocked = try await redis.blockedPop(seenBy: raw)
        let shutdown = Task { await redis.client.shutdown() }
        // Until the shutdown reaches the loop a PING queues behind the BLPOP (and times out).
        await eventually(.live, "new commands are refused") {
            if case .failure(.shutdown) = await redis.outcome("PING", budget: .milliseconds(100)) { true } else { false }
        }
        #expect(try await raw.call("LPUSH", "queue", "item").integer == 1)
        #expect(try await blocked.value.elements?.last?.string == "item")
        await shutdown.value
        #expect(!redis.client.isConnected)
        #expect(redis.observer.changes.last == .disconnected(.command(loopIndex: 0), .shutdown))
        await redis.close()
    }

    @Test func commandsBeforeStartFailAtOnce() async throws {
        let server = try RedisServer()
        let group = try EventLoopGroup(loopCount: 1)
        let client = RedisClient(url: RedisURL(host: "127.0.0.1", port: server.port), loops: group.loops, time: ClockTimeSource())
        await #expect(throws: RedisClientError.notConnected) {
            try await client.run(.command(RESPCommand("PING")), deadline: .seconds(1_000_000))
        }
        await client.shutdown()
        group.shutdown()
        server.stop()
    }
}
