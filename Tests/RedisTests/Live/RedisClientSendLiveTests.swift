import EventLoop
import Locking
import PureTestSupport
import RESP
import Redis
import Testing
import TestSupport
import Timekeeping

/// `RedisClient.send`: a command from a loop thread answered through a callback on that loop,
/// with no task, against real servers.
@Suite("Redis client sending without a task", .timeLimit(.minutes(3)))
struct RedisClientSendLiveTests {
    /// Sends `command` from `loop`'s thread; the outcome, and whether the callback ran there.
    static func send(
        _ command: RESPCommand, from loop: EventLoop, client: RedisClient, time: any TimeSource, budget: Duration = .seconds(10)
    ) async -> (outcome: Result<RESPValue, RedisClientError>?, onLoop: Bool) {
        await withCheckedContinuation { continuation in
            let submitted = loop.execute {
                let cancel = client.send(.command(command), deadline: time.now + budget) { outcome in
                    continuation.resume(returning: (outcome, EventLoop.current === loop))
                }
                if cancel == nil { continuation.resume(returning: (nil, true)) }
            }
            if !submitted { continuation.resume(returning: (nil, false)) }
        }
    }

    @Test func commandsSentFromEachLoopAreAnsweredOnThatLoopInOrder() async throws {
        let redis = try RedisClientHarness()
        await redis.discovered()
        for loop in redis.group.loops {
            // A hundred sends in one turn of the loop: each callback gets its own reply, in order.
            let replies = await withCheckedContinuation { (continuation: CheckedContinuation<[String], Never>) in
                _ = loop.execute {
                    let collected = Locked<[String]>([])
                    for index in 0..<100 {
                        let cancel = redis.client.send(.command(RESPCommand("ECHO", .string("m\(index)"))), deadline: redis.deadline()) { outcome in
                            #expect(EventLoop.current === loop)
                            let all = collected.withLock { list in
                                list.append((try? outcome.get().string) ?? "failed")
                                return list
                            }
                            if all.count == 100 { continuation.resume(returning: all) }
                        }
                        #expect(cancel != nil)
                    }
                }
            }
            #expect(replies == (0..<100).map { "m\($0)" })
        }
        #expect(redis.observer.outcomes.count == 200)
        #expect(redis.observer.outcomes.allSatisfy { $0 == .reply })
        await redis.close()
    }

    /// One loop, discovered, with a busy-poll budget so long that only a reply ends a poll.
    static func pollingHarness() async throws -> RedisClientHarness {
        var configuration = RedisClientHarness.patientConfiguration
        configuration.busyPoll = .seconds(5)
        let redis = try RedisClientHarness(loops: 1, configuration: configuration)
        await redis.discovered()
        return redis
    }

    /// A lone command holds its loop polling without blocking until its reply, which ends the
    /// hold before the caller hears of it; two in flight hold nothing. The budget is long, so
    /// only the reply can have ended the polling.
    @Test func aLoneCommandKeepsItsLoopPollingUntilTheReplyAndTwoDoNot() async throws {
        let redis = try await Self.pollingHarness()
        let loop = redis.group.loops[0]
        for lone in [true, true, false, true] {
            let (pollingAfterFlush, pollingAtReply) = await withCheckedContinuation { (continuation: CheckedContinuation<(Bool, [Bool]), Never>) in
                _ = loop.execute {
                    let seen = Locked<(flush: Bool, replies: [Bool])>((false, []))
                    let count = lone ? 1 : 2
                    for index in 0..<count {
                        _ = redis.client.send(.command(RESPCommand("ECHO", .string("b\(index)"))), deadline: redis.deadline()) { _ in
                            let done = seen.withLock { seen in
                                seen.replies.append(loop.isBusyPolling)
                                return seen.replies.count == count ? seen : nil
                            }
                            if let done { continuation.resume(returning: (done.flush, done.replies)) }
                        }
                    }
                    // Queued behind the flush the sends queued, before any reply can be read.
                    _ = loop.execute { seen.withLock { $0.flush = loop.isBusyPolling } }
                }
            }
            #expect(pollingAfterFlush == lone)
            #expect(pollingAtReply.allSatisfy { !$0 })
        }
        await redis.close()
    }

    /// A caller that sends its next command from the previous one's callback (a chain of lone
    /// commands): each reply polled for is reported, though the next command is in flight by the
    /// time the callback returns.
    @Test func aChainOfLoneCommandsReportsEachPolledReply() async throws {
        let redis = try await Self.pollingHarness()
        let loop = redis.group.loops[0]
        let links = 5
        let answered = await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
            @Sendable func link(_ index: Int) {
                _ = redis.client.send(.command(RESPCommand("ECHO", .string("c\(index)"))), deadline: redis.deadline()) { _ in
                    if index + 1 < links { link(index + 1) } else { continuation.resume(returning: index + 1) }
                }
            }
            _ = loop.execute { link(0) }
        }
        #expect(answered == links)
        #expect(redis.observer.polls == Array(repeating: true, count: links))
        await redis.close()
    }

    /// Sends made in one job of the loop leave in parts of `writesPerFlush` commands, the last
    /// part when the job is done: Redis starts on the first while the loop is still busy.
    @Test func fiftySendsInOneJobLeaveAsAPartOf32AndTheRest() async throws {
        let redis = try RedisClientHarness(loops: 1)
        await redis.discovered()
        let loop = redis.group.loops[0]
        let answered = await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
            _ = loop.execute {
                let replies = Locked(0)
                for index in 0..<50 {
                    _ = redis.client.send(.command(RESPCommand("ECHO", .string("p\(index)"))), deadline: redis.deadline()) { outcome in
                        let count = replies.withLock { count in
                            if (try? outcome.get().string) == "p\(index)" { count += 1 }
                            return count
                        }
                        if count == 50 { continuation.resume(returning: count) }
                    }
                }
            }
        }
        #expect(answered == 50)
        #expect(redis.observer.writes == [32, 18])
        await redis.close()
    }

    @Test func aSendOffTheLoopsOrBeforeStartIsDeclined() async throws {
        let redis = try RedisClientHarness(loops: 1)
        await redis.discovered()
        #expect(redis.client.send(.command(RESPCommand("PING")), deadline: redis.deadline()) { _ in Issue.record("answered") } == nil)
        let loop = redis.group.loops[0]
        let sent = await Self.send(RESPCommand("PING"), from: loop, client: redis.client, time: redis.time)
        #expect(try sent.outcome?.get().string == "PONG")
        #expect(sent.onLoop)

        let unstarted = RedisClient(url: redis.client.url, loops: redis.group.loops, time: redis.time)
        let declined = await Self.send(RESPCommand("PING"), from: loop, client: unstarted, time: redis.time)
        #expect(declined.outcome == nil)
        await unstarted.shutdown()
        await redis.close()
    }

    @Test func aCancelledSendIsAnsweredAtOnceAndItsReplyIsDropped() async throws {
        let redis = try RedisClientHarness(loops: 1)
        await redis.discovered()
        let raw = try RawRedis(redis.server)
        let loop = redis.group.loops[0]
        let outcome = Locked<Result<RESPValue, RedisClientError>?>(nil)
        // The cancel action belongs to the loop: kept bound to it, and run there.
        let cancel = Locked<LoopBound<(() -> Void)?>?>(nil)
        _ = loop.execute {
            let action = redis.client.send(.command(RESPCommand("BLPOP", "queue", 0)), deadline: redis.deadline(.seconds(30))) { result in
                outcome.withLock { $0 = result }
            }
            cancel.withLock { $0 = LoopBound(action, loop: loop) }
        }
        try await eventually(.live, "BLPOP blocks on the server") { try await raw.info("blocked_clients") == 1 }
        #expect(outcome.withLock { $0 } == nil)
        let cancelAction = try #require(cancel.withLock { $0 })
        _ = loop.execute { cancelAction.value?() }
        await eventually(.live, "the cancelled send was answered") { outcome.withLock { $0 } != nil }
        #expect(throws: RedisClientError.cancelled) { try outcome.withLock { $0 }?.get() }
        // The BLPOP's reply comes once something is pushed, and is dropped: ECHO gets its own.
        let echo = Task { try await redis.run("ECHO", "after") }
        #expect(try await raw.call("LPUSH", "queue", "item").integer == 1)
        #expect(try await echo.value.string == "after")
        #expect(redis.observer.outcomes.contains(.failed(.cancelled)))
        await redis.close()
    }

    /// A map gone stale under the client (a reshard it has not read yet): the sent command meets
    /// `MOVED`, which is followed as `run` follows it, and learnt.
    @Test func aSendThatMeetsMovedFollowsItAndAnswersOnItsLoop() async throws {
        let cluster = try await RedisClusterServers.started()
        defer { cluster.stop() }
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let time = ClockTimeSource()
        let observer = RecordingObserver()
        let client = RedisClient(
            url: RedisURL(host: "127.0.0.1", port: cluster.ports[0]), loops: group.loops,
            configuration: RedisClientHarness.patientConfiguration, time: time, observer: observer.asObserver,
            refreshInterval: .seconds(3600))
        client.start()
        await eventually(.live, "the client read the map") { client.slotMap != nil }

        let masters = try await cluster.masters()
        let (source, target) = (masters[0], masters[1])
        let view = try await cluster.reshard(slots: 1, from: source, to: target)
        let moved = try #require(source.slots.flatMap { $0 }.first { slot in view.contains { $0.id == target.id && $0.serves(slot: slot) } })
        let key = try #require((0..<100_000).lazy.map { "k\($0)" }.first { RedisHashSlot.of($0) == moved })
        #expect(try await cluster.send(RESPCommand("SET", .string(key), "moved-value"), to: target.port).string == "OK")
        #expect(client.owner(ofKey: key) == RedisNodeAddress(host: "127.0.0.1", port: source.port), "the map is stale")

        let sent = await Self.send(RESPCommand("GET", .string(key)), from: group.loops[0], client: client, time: time)
        #expect(try sent.outcome?.get().string == "moved-value")
        #expect(sent.onLoop)
        #expect(observer.clusterEvents.contains { if case .redirected(.moved(slot: moved, _)) = $0 { true } else { false } })
        await client.shutdown()
    }
}
