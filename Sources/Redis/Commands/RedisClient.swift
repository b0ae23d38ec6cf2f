import EventLoop
import Locking
import RESP
import Synchronization
import Timekeeping

/// A Redis client for a single server or a Redis Cluster, found by itself from one node's URL:
/// one pipelined command connection per loop and node it sends to (on a cluster, the masters),
/// each a `RedisCommandConnectionStateMachine` in a thin shell (`RedisCommandConnection`).
/// Which node a request goes to is ``RedisClusterTopology``'s answer, how a request follows
/// redirects is ``RedisClusterCall``'s; this shell only connects, sends, sleeps and reports.
///
/// A caller on one of the loops uses that loop's connections, so its command goes out and its
/// reply comes back on its own thread with no hop; a caller elsewhere uses the first loop's.
///
/// Every node is logged in to with the URL's credentials. A cluster has database 0 only: a URL
/// naming another is refused by the nodes (`SELECT`), which the connections report as permanent.
package final class RedisClient: RedisCommandRunner {
    package let url: RedisURL
    package let loops: [EventLoop]
    private let configuration: RedisCommandConnectionConfiguration
    private let time: any TimeSource
    private let observer: RedisClientObserver
    private let topology: Locked<RedisClusterTopology>
    /// `REDIS_URL`'s node.
    private let seed: RedisNodeAddress
    /// Per loop, in the order of `loops`: its connection to the seed, made at `init`, so a command
    /// to a single Redis takes no lock and no table look-up to find its connection.
    private let seedConnections: [RedisCommandConnection]
    /// Per loop, in the order of `loops`: its connections to the other nodes it sends to.
    private let connections: [NodeConnections]
    /// ``Lifecycle``'s raw value, read by every command.
    private let lifecycle = Atomic<Int>(Lifecycle.new.rawValue)
    /// Set once the seed said it is no cluster: every command then goes to the seed, asking the
    /// topology nothing.
    private let isSingle = Atomic<Bool>(false)
    /// How long a `CLUSTER SLOTS` may take before the next node is asked.
    private let refreshTimeout: Duration

    /// `loops` must not be empty.
    package init(
        url: RedisURL, loops: [EventLoop], configuration: RedisCommandConnectionConfiguration = .init(),
        time: any TimeSource, observer: RedisClientObserver = RedisClientObserver(), refreshInterval: Duration = .seconds(10)
    ) {
        precondition(!loops.isEmpty, "a Redis client needs at least one loop")
        self.url = url
        self.loops = loops
        self.configuration = configuration
        self.time = time
        self.observer = observer
        seed = RedisNodeAddress(host: url.host, port: url.port)
        topology = Locked(RedisClusterTopology(seed: seed, refreshInterval: refreshInterval))
        seedConnections = loops.map { loop in
            RedisCommandConnection(url: url, loop: loop, configuration: configuration, time: time, observer: observer)
        }
        connections = loops.map { _ in NodeConnections() }
        refreshTimeout = max(configuration.connectTimeout, .seconds(1))
    }

    private enum Lifecycle: Int {
        case new, started, shutDown
    }

    private var state: Lifecycle {
        Lifecycle(rawValue: lifecycle.load(ordering: .acquiring)) ?? .shutDown
    }

    /// Opens a connection to the seed on every loop (a refused password shows at once, on each)
    /// and learns what the seed is. Commands run before a connection is ready wait for it
    /// (bounded by their deadlines); commands run before `start` fail at once.
    package func start() {
        guard lifecycle.compareExchange(
            expected: Lifecycle.new.rawValue, desired: Lifecycle.started.rawValue, ordering: .acquiringAndReleasing
        ).exchanged else { return }
        for connection in seedConnections {
            // Started before any command reaches it: `execute` runs jobs in order.
            if connection.loop.inLoop { connection.start() } else { connection.loop.execute { connection.start() } }
        }
        refreshIfDue()
    }

    /// Whether any command connection is ready (its handshake done).
    package var isConnected: Bool {
        seedConnections.contains { $0.ready.load(ordering: .relaxed) }
            || connections.contains { loop in loop.table.withLock { $0.values.contains { $0.ready.load(ordering: .relaxed) } } }
    }

    /// The command connections whose handshake is done, by their node's role in the map as last
    /// read: one per loop and master when all is well. A connection to a node that is down is not
    /// ready, so it counts nowhere.
    package func readyConnections() -> [RedisNodeRole: Int] {
        var nodes = seedConnections.filter { $0.ready.load(ordering: .relaxed) }.map { _ in seed }
        for loop in connections {
            loop.table.withLock { table in
                for (node, connection) in table where connection.ready.load(ordering: .relaxed) { nodes.append(node) }
            }
        }
        return topology.withLock { $0.countByRole(nodes) }
    }

    /// Whether Redis is a cluster, a single server, or not known yet.
    package var mode: RedisClusterTopology.Mode {
        topology.withLock { $0.mode }
    }

    /// The cluster's map as last read (nil on a single server or before the first refresh).
    package var slotMap: RedisSlotMap? {
        topology.withLock { $0.map }
    }

    /// On a cluster whose map is known, the master serving `key`'s slot; otherwise nil.
    package func owner(ofKey key: String) -> RedisNodeAddress? {
        topology.withLock { $0.mode == .cluster && $0.map != nil ? $0.node(forSlot: RedisHashSlot.of(key)) : nil }
    }

    /// A redirect met elsewhere (the subscription's): the map learns it as from its own.
    package func learn(_ redirect: RedisRedirect) {
        topology.withLock { $0.redirected(redirect) }
        refreshIfDue()
    }

    /// Runs `request` on its node's connection for the current loop. `deadline` is on `time`'s
    /// line (`time.now + budget`) and bounds every redirect and pause too. Error replies
    /// (`-ERR …`) come back as a `RESPValue`, not thrown. A cancelled caller is resumed at once
    /// with `.cancelled`. The same command as ``send(_:deadline:completion:)``, awaited through
    /// ``LoopOperation/value()`` (from any thread: it goes to its loop).
    package func run(_ request: RedisRequest, deadline: Duration) async throws(RedisClientError) -> RESPValue {
        if Task.isCancelled { throw .cancelled }
        switch state {
        case .started: break
        case .new: throw .notConnected
        case .shutDown: throw .shutdown
        }
        let index = EventLoop.current.flatMap { current in loops.firstIndex { $0 === current } } ?? 0
        var call = RedisClusterCall(request, deadline: deadline)
        let first = call.start(owner: owner(of: request))
        guard let sent = firstCall(call, first, deadline: deadline, onLoop: index) else {
            return try await follow(&call, from: first, deadline: deadline)
        }
        return try await sent.value().get()
    }

    /// `run` for a caller on one of the client's loops that waits in no task: `completion` gets
    /// what `run` would return, on this loop, perhaps before this returns. A reply that is a
    /// redirect or asks for a pause is followed in a task, as `run` follows it. Returns what
    /// cancels the command (on this loop), or `nil`, and `completion` never runs, off the
    /// client's loops or outside `start`...`shutdown`.
    package func send(
        _ request: RedisRequest, deadline: Duration, completion: @escaping @Sendable (Result<RESPValue, RedisClientError>) -> Void
    ) -> (() -> Void)? {
        guard state == .started, let current = EventLoop.current, let index = loops.firstIndex(where: { $0 === current }) else {
            return nil
        }
        var call = RedisClusterCall(request, deadline: deadline)
        let first = call.start(owner: owner(of: request))
        guard let sent = firstCall(call, first, deadline: deadline, onLoop: index) else { return nil }
        sent.start(.callback(completion))
        return { [sent] in sent.cancel() }
    }

    /// The call that sends a caller's command first, carrying what follows its reply: `call` as
    /// its `start` left it, `first` what that said. `nil` when the command does not start with a
    /// send (a pause first: `follow` carries it).
    private func firstCall(
        _ call: RedisClusterCall, _ first: RedisClusterCall.Action, deadline: Duration, onLoop index: Int
    ) -> RedisCall? {
        guard case .send(let request, let node) = first else { return nil }
        return RedisCall(
            connection: connection(to: node, onLoop: index), request: request, deadline: deadline,
            follower: RedisCall.Follower(client: self, cluster: call, node: node, loopIndex: index))
    }

    /// A caller's command answered on `sent`'s loop: an answer goes to `waiter`; a redirect is
    /// learnt and followed in a task (on the caller's loop), whose answer goes to `waiter` there.
    func replied(
        _ outcome: RedisCall.Outcome, to sent: RedisCall, _ follower: RedisCall.Follower, waiter: LoopCompletion<RedisCall.Outcome>
    ) {
        let reply: RESPValue
        switch outcome {
        case .success(let value):
            reply = value
        case .failure(let error):
            failed(error, on: follower.node)
            waiter(.failure(error))
            return
        }
        // Nearly every reply: the answer, with no copy of the call to step.
        guard RedisClusterCall.redirect(in: reply) != nil else {
            waiter(.success(reply))
            return
        }
        var call = follower.cluster
        let next = replied(reply, to: &call)
        if case .answer(let value) = next {
            waiter(.success(value))
            return
        }
        let loop = loops[follower.loopIndex]
        let pending = call
        let deadline = call.deadline
        sent.following = Task(executorPreference: loop) { [self] in
            var call = pending
            let result: Result<RESPValue, RedisClientError>
            do throws(RedisClientError) {
                result = .success(try await follow(&call, from: next, deadline: deadline))
            } catch {
                result = .failure(error)
            }
            if loop.inLoop { waiter(result) } else { _ = loop.execute { waiter(result) } }
        }
    }

    /// Carries `call` on from `action` until it answers: sends, follows redirects, pauses.
    private func follow(
        _ call: inout RedisClusterCall, from action: RedisClusterCall.Action, deadline: Duration
    ) async throws(RedisClientError) -> RESPValue {
        var action = action
        while true {
            switch action {
            case .send(let request, let node):
                let reply: RESPValue
                switch await connection(to: node).run(request, deadline: deadline) {
                case .success(let value):
                    reply = value
                case .failure(let error):
                    failed(error, on: node)
                    throw error
                }
                action = replied(reply, to: &call)
            case .pause(let instant):
                do {
                    try await time.sleep(for: instant - time.now)
                } catch {
                    throw .cancelled
                }
                action = call.pauseEnded(owner: owner(of: call.request))
            case .answer(let reply):
                return reply
            }
        }
    }

    /// What `call` does after `reply`; a redirect is learnt by the map.
    private func replied(_ reply: RESPValue, to call: inout RedisClusterCall) -> RedisClusterCall.Action {
        let (next, redirect) = call.replied(reply, now: time.now)
        if let redirect {
            observer.cluster(.redirected(redirect))
            topology.withLock { $0.redirected(redirect) }
            refreshIfDue()
        }
        return next
    }

    /// A command to `node` got no reply: a node in trouble is marked so and the map refreshed.
    private func failed(_ error: RedisClientError, on node: RedisNodeAddress) {
        guard error.meansNodeTrouble else { return }
        topology.withLock { $0.unreachable(node) }
        refreshIfDue()
    }

    /// Stops every connection: each waits for the replies of its written commands (or their
    /// deadlines), then closes. No connection opens afterwards.
    package func shutdown() async {
        lifecycle.store(Lifecycle.shutDown.rawValue, ordering: .releasing)
        await close(seedConnections + connections.flatMap { $0.table.withLock { Array($0.values) } })
    }

    /// Shuts `closing` down, each once its written commands are answered (or their deadlines pass).
    private func close(_ closing: [RedisCommandConnection]) async {
        await withTaskGroup(of: Void.self) { group in
            for connection in closing {
                group.addTask {
                    await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                        if !connection.loop.execute({ connection.shutdown(continuation) }) { continuation.resume() }
                    }
                }
            }
        }
    }

    /// The node `request` goes to now; starts a refresh when one is due. The slot is worked out
    /// only on a cluster: a single server needs none.
    private func owner(of request: RedisRequest) -> RedisNodeAddress {
        if isSingle.load(ordering: .relaxed) { return seed }
        let now = time.now
        let (node, refresh) = topology.withLock { topology in
            let node = topology.mode == .single ? topology.seed : topology.node(forSlot: request.routingKey.map(RedisHashSlot.of(argument:)))
            return (node, topology.refreshToStart(now: now))
        }
        if let refresh { startRefresh(asking: refresh) }
        return node
    }

    /// The current loop's connection to `node` (`loops[0]`'s off a loop), opened on first use.
    private func connection(to node: RedisNodeAddress) -> RedisCommandConnection {
        connection(to: node, onLoop: EventLoop.current.flatMap { current in loops.firstIndex { $0 === current } } ?? 0)
    }

    private func connection(to node: RedisNodeAddress, onLoop index: Int) -> RedisCommandConnection {
        if node == seed { return seedConnections[index] }
        let loop = loops[index]
        var opened: RedisCommandConnection?
        let connection = connections[index].table.withLock { table in
            if let existing = table[node] { return existing }
            var nodeURL = url
            nodeURL.host = node.host ?? url.host
            nodeURL.port = node.port
            let connection = RedisCommandConnection(url: nodeURL, loop: loop, configuration: configuration, time: time, observer: observer)
            table[node] = connection
            opened = connection
            return connection
        }
        if let opened, state != .shutDown {
            // Started before any command reaches it: `execute` runs jobs in order.
            if loop.inLoop { opened.start() } else { loop.execute { opened.start() } }
        }
        return connection
    }

    /// Opens connections to a new map's masters on every loop before requests need them.
    private func connectEveryLoop(to masters: [RedisNodeAddress]) {
        guard state == .started else { return }
        for master in masters {
            for index in loops.indices { _ = connection(to: master, onLoop: index) }
        }
    }

    /// Closes the connections to nodes the map no longer names as masters (a failed master, or
    /// one resharded empty), which would otherwise keep reconnecting; the seed's are not in the
    /// table and stay, for the next refresh and the redirects that name it.
    private func retire(allBut masters: [RedisNodeAddress]) async {
        let kept = Set(masters)
        let retired = connections.flatMap { loop in
            loop.table.withLock { table in
                let gone = table.filter { !kept.contains($0.key) }
                for node in gone.keys { table[node] = nil }
                return Array(gone.values)
            }
        }
        await close(retired)
    }

    private func refreshIfDue() {
        let now = time.now
        if let nodes = topology.withLock({ $0.refreshToStart(now: now) }) { startRefresh(asking: nodes) }
    }

    private func startRefresh(asking nodes: [RedisNodeAddress]) {
        Task { await refresh(asking: nodes) }
    }

    /// Asks each node in turn for the map until one answers.
    private func refresh(asking nodes: [RedisNodeAddress]) async {
        for node in nodes {
            guard case .success(let reply) = await connection(to: node).run(
                .command(RESPCommand("CLUSTER", "SLOTS")), deadline: time.now + refreshTimeout)
            else { continue }
            if let message = reply.errorMessage {
                // "ERR This instance has cluster support disabled": a single server.
                if node == seed, message.lowercased().contains("cluster support disabled") {
                    topology.withLock { $0.notACluster(now: time.now) }
                    isSingle.store(true, ordering: .relaxed)
                    observer.cluster(.single)
                    return
                }
                continue
            }
            guard let map = try? RedisSlotMap(clusterSlots: reply, asked: node) else { continue }
            let change = topology.withLock { $0.refreshed(map, now: time.now) }
            observer.cluster(.refreshed(change: change))
            if change != nil {
                connectEveryLoop(to: map.masters)
                await retire(allBut: map.masters)
            }
            return
        }
        topology.withLock { $0.refreshFailed(now: time.now) }
        observer.cluster(.refreshFailed)
    }
}

/// One loop's connections to the nodes, by address.
private final class NodeConnections: Sendable {
    let table = Locked<[RedisNodeAddress: RedisCommandConnection]>([:])
}
