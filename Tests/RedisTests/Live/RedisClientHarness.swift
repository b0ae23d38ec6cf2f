import EventLoop
import Locking
import PureTestSupport
import RESP
import Redis
import Testing
import TestSupport
import Timekeeping

/// Everything a live client test needs: a real `redis-server`, loops, a client on them and a
/// recording observer. `close()` shuts all of it down, the server last.
final class RedisClientHarness: Sendable {
    let server: RedisServer
    let group: EventLoopGroup
    let time = ClockTimeSource()
    let observer = RecordingObserver()
    let client: RedisClient

    /// Settings for a shared, busy test machine: a loop starved of CPU for a moment must not
    /// look like a dead server (the tests about that limit set their own).
    static let patientConfiguration = RedisCommandConnectionConfiguration(connectTimeout: .seconds(10), unansweredReplyLimit: .seconds(30))

    init(
        loops: Int = 2, password: String? = nil, url: ((RedisServer) -> RedisURL)? = nil,
        configuration: RedisCommandConnectionConfiguration = patientConfiguration
    ) throws {
        server = try RedisServer(password: password)
        group = try EventLoopGroup(loopCount: loops)
        let redisURL = url?(server) ?? RedisURL(host: "127.0.0.1", port: server.port, password: password)
        client = RedisClient(url: redisURL, loops: group.loops, configuration: configuration, time: time, observer: observer.asObserver)
        client.start()
    }

    /// Once the client knows the server is no cluster (its first `CLUSTER SLOTS` answered),
    /// with that command's outcome forgotten: what a test counts afterwards is its own.
    func discovered() async {
        await eventually(.live, "the client learnt what the server is") { client.mode == .single }
        observer.forgetOutcomes()
    }

    func close() async {
        await client.shutdown()
        group.shutdown()
        server.stop()
    }

    /// A deadline `budget` from now, on the client's time line.
    func deadline(_ budget: Duration = .seconds(10)) -> Duration {
        time.now + budget
    }

    func run(_ name: String, _ arguments: RESPArgument..., budget: Duration = .seconds(10)) async throws(RedisClientError) -> RESPValue {
        try await client.run(.command(RESPCommand(arguments: [.string(name)] + arguments)), deadline: deadline(budget))
    }

    /// `run` as a value: the reply or the error.
    func outcome(_ name: String, _ arguments: RESPArgument..., budget: Duration = .seconds(10)) async -> Result<RESPValue, RedisClientError> {
        do throws(RedisClientError) {
            return .success(try await client.run(.command(RESPCommand(arguments: [.string(name)] + arguments)), deadline: deadline(budget)))
        } catch {
            return .failure(error)
        }
    }

    /// A `BLPOP queue 0` in a task of its own, once Redis reports it blocked: a written command
    /// that stays unanswered until `raw` pushes to `queue`.
    func blockedPop(seenBy raw: RawRedis) async throws -> Task<RESPValue, any Error> {
        let blocked = Task { try await run("BLPOP", "queue", 0) }
        try await eventually(.live, "BLPOP blocks on the server") { try await raw.info("blocked_clients") == 1 }
        return blocked
    }

    /// Runs `body` in a task that prefers `loop`, so the client sees it as that loop's caller.
    func onLoop<T: Sendable>(_ index: Int, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let loop = group.loops[index]
        return try await Task(executorPreference: loop) {
            #expect(EventLoop.current === loop)
            return try await body()
        }.value
    }
}

/// Records every observer call, and a subscription's events, for assertions.
final class RecordingObserver: Sendable {
    private let state = Locked(State())

    private struct State {
        var changes: [RedisConnectionChange] = []
        var outcomes: [RedisCommandOutcome] = []
        var events: [RedisSubscriptionEvent] = []
        var cluster: [RedisClusterEvent] = []
        var writes: [Int] = []
        var polls: [Bool] = []
    }

    func record(_ event: RedisSubscriptionEvent) {
        state.withLock { $0.events.append(event) }
    }

    func commandFinished(latency: Duration, outcome: RedisCommandOutcome) {
        #expect(latency >= .zero)
        state.withLock { $0.outcomes.append(outcome) }
    }

    func connectionChanged(_ change: RedisConnectionChange) {
        state.withLock { $0.changes.append(change) }
    }

    /// What a client or subscription under test reports to.
    var asObserver: RedisClientObserver {
        RedisClientObserver(
            commandFinished: { [self] in commandFinished(latency: $0, outcome: $1) },
            connectionChanged: { [self] in connectionChanged($0) },
            cluster: { [self] event in state.withLock { $0.cluster.append(event) } },
            wrote: { [self] requests in state.withLock { $0.writes.append(requests) } },
            busyPolled: { [self] caught in state.withLock { $0.polls.append(caught) } })
    }

    /// Forgets the outcomes and writes so far (the client's own `CLUSTER SLOTS`, for a test
    /// that counts).
    func forgetOutcomes() {
        state.withLock { state in
            state.outcomes = []
            state.writes = []
            state.polls = []
        }
    }

    var changes: [RedisConnectionChange] { state.withLock { $0.changes } }
    var outcomes: [RedisCommandOutcome] { state.withLock { $0.outcomes } }
    var events: [RedisSubscriptionEvent] { state.withLock { $0.events } }
    var clusterEvents: [RedisClusterEvent] { state.withLock { $0.cluster } }
    /// The requests each write to a command connection carried.
    var writes: [Int] { state.withLock { $0.writes } }
    /// Each reply a loop busy-polled for: whether it came within the budget.
    var polls: [Bool] { state.withLock { $0.polls } }
}

/// How long `body` took on the wall clock.
func elapsed<T>(_ body: () async throws -> T) async rethrows -> (T, Duration) {
    let clock = ContinuousClock()
    let start = clock.now
    let value = try await body()
    return (value, start.duration(to: clock.now))
}
