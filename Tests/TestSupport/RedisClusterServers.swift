import Foundation
import Locking
import RESP

#if canImport(Glibc)
import Glibc
#endif

/// A real Redis Cluster for tests: six `redis-server --cluster-enabled yes` on 127.0.0.1 and free
/// ports, joined by `redis-cli --cluster create --cluster-replicas 1` (three masters with one
/// replica each), no persistence, their files in one temporary folder named as `RedisServer`'s
/// are (so scripts/reap-test-redis.sh finds nodes a dead test process left). Stopped at `stop()`
/// or when the value goes away, SIGKILL even when frozen.
///
/// Every node's cluster bus gets a free port of its own: the default, the port plus 10,000, may be
/// taken or past 65,535. Ports are probed as `RedisServer` does, and a node whose port another
/// process took first is started again on new ones.
///
/// Everything that waits (starting, a failover, a reshard) runs on a thread of its own: it must not
/// hold one of the few threads Swift's concurrency runs every test on. The bounds are generous
/// (the host is shared and often loaded); they only end a test that would otherwise hang.
package final class RedisClusterServers: Sendable {
    package static let size = 6
    package static let slotCount = 16_384

    package let password: String?
    /// `cluster-node-timeout`: how long a master may be silent before its replica takes over.
    package let nodeTimeout: Duration
    /// The client ports of the six nodes, ascending.
    package let ports: [Int]
    /// Each node's process, by port: a restarted node gets a new one.
    private let processes: Locked<[Int: SpawnedProcess]>
    /// Each node's cluster bus port, by port: a restarted node must answer on the same one.
    private let busPorts: [Int: Int]
    private let folder: URL
    /// Ports of the nodes killed and of those frozen: asking them would fail or hang.
    private let unreachable = Locked<(killed: Set<Int>, frozen: Set<Int>)>(([], []))

    /// Where `redis-cli` is, or nil when it is not installed.
    package static var cliExecutable: String? {
        ["/usr/bin/redis-cli", "/usr/local/bin/redis-cli"].first { (path: String) in access(path, X_OK) == 0 }
    }

    /// Starts and joins the nodes and returns once they agree; blocks the calling thread (see
    /// `started`).
    package init(password: String? = nil, nodeTimeout: Duration = .milliseconds(2000), settleWithin: Duration = .seconds(90)) throws {
        guard let server = RedisServer.executable, let cli = Self.cliExecutable else { throw RedisClusterServersError.notInstalled }
        self.password = password
        self.nodeTimeout = nodeTimeout
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pd-redis-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let nodes: [Int: (process: SpawnedProcess, busPort: Int)]
        do {
            nodes = try Self.launchNodes(executable: server, password: password, nodeTimeout: nodeTimeout, folder: folder)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
        processes = Locked(nodes.mapValues(\.process))
        busPorts = nodes.mapValues(\.busPort)
        ports = nodes.keys.sorted()
        // Every stored property is set: a throw from here on runs `deinit`, which stops the nodes.
        _ = try runCLI(cli, ["--cluster", "create"] + ports.map { "127.0.0.1:\($0)" } + ["--cluster-replicas", "1", "--cluster-yes"], timeout: .seconds(120))
        _ = try waitBlocking(within: settleWithin, for: "the new cluster to settle") { try settledView() }
    }

    /// Starts a cluster on a thread of its own and returns once every node says `cluster_state:ok`,
    /// they agree on every node's role and slots, and every replica is in sync with its master.
    package static func started(password: String? = nil, nodeTimeout: Duration = .milliseconds(2000)) async throws -> RedisClusterServers {
        try await RawClient.blocking { try RedisClusterServers(password: password, nodeTimeout: nodeTimeout) }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Kills every node (SIGKILL works on a frozen one too) and waits for them.
    package func stop() {
        let running = processes.withLock { Array($0.values) }
        for process in running where process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
        }
        for process in running {
            RedisServer.waitForDeath(of: process.processIdentifier)
        }
    }

    // MARK: - Looking

    /// Every node as the first reachable node's `CLUSTER NODES` says, by port; killed nodes too
    /// (flagged `failed` once the cluster agrees they are gone).
    package func nodes() async throws -> [RedisClusterNode] {
        try await RawClient.blocking { [self] in
            guard let port = reachablePorts.first else { throw RedisClusterServersError.notSettled("no node is reachable") }
            let text = try ask(port, [RESPCommand("CLUSTER", "NODES")])[0].string ?? ""
            guard let nodes = RedisClusterNode.parse(clusterNodes: text) else { throw RedisClusterServersError.notSettled("\(port) reads: \(text)") }
            return nodes
        }
    }

    /// The masters serving slots, by port.
    package func masters() async throws -> [RedisClusterNode] {
        try await nodes().filter { $0.role == .master && !$0.failed && !$0.slots.isEmpty }
    }

    /// Sends `command` to the node on `port` (authenticated first when there is a password) and
    /// returns its reply: redirects are the caller's to read.
    package func send(_ command: RESPCommand, to port: Int) async throws -> RESPValue {
        try await send([command], to: port)[0]
    }

    /// Sends `commands` in one write (pipelined) and returns their replies, in order.
    package func send(_ commands: [RESPCommand], to port: Int) async throws -> [RESPValue] {
        try await RawClient.blocking { [self] in try ask(port, commands) }
    }

    /// Waits until the reachable nodes say `cluster_state:ok`, agree on every node's role and
    /// slots, serve every slot, and every reachable replica is in sync; returns that view.
    @discardableResult
    package func waitUntilSettled(within limit: Duration = .seconds(60)) async throws -> [RedisClusterNode] {
        try await RawClient.blocking { [self] in
            try waitBlocking(within: limit, for: "the cluster to settle") { try settledView() }
        }
    }

    // MARK: - Faults

    /// Kills `node` (SIGKILL: no goodbye to the cluster) and waits until it is gone.
    package func kill(_ node: RedisClusterNode) {
        kill(ports: [node.port])
    }

    /// Kills every node at once: the whole cluster lost, none of them marking another failed.
    package func killAll() {
        kill(ports: ports)
    }

    private func kill(ports killed: [Int]) {
        let victims = processes.withLock { running in killed.compactMap { running[$0] } }
        unreachable.withLock { $0.killed.formUnion(killed) }
        for process in victims { Glibc.kill(process.processIdentifier, SIGKILL) }
        for process in victims { RedisServer.waitForDeath(of: process.processIdentifier) }
    }

    /// Starts every killed node again on its ports, with its cluster configuration file (its id,
    /// role and the other nodes), and waits until the cluster is settled. With no persistence a
    /// node comes back empty; a replica copies its master again.
    package func restartKilled(within limit: Duration = .seconds(60)) async throws {
        guard let executable = RedisServer.executable else { throw RedisClusterServersError.notInstalled }
        try await RawClient.blocking { [self] in
            let killed = unreachable.withLock { $0.killed }.sorted()
            for port in killed {
                let arguments = Self.nodeArguments(
                    port: port, busPort: busPorts[port] ?? 0, password: password, nodeTimeout: nodeTimeout, folder: folder)
                let process = try SpawnedProcess(executable: executable, arguments: arguments)
                processes.withLock { $0[port] = process }
                guard try RedisServer.waitUntilAnswering(port: port, process: process, password: password) else {
                    throw RedisClusterServersError.didNotStart("port \(port) was taken while the node was down")
                }
                unreachable.withLock { _ = $0.killed.remove(port) }
            }
            _ = try waitBlocking(within: limit, for: "the restarted cluster to settle") { try settledView() }
        }
    }

    /// Suspends `node` (SIGSTOP): its connections stay open and nothing answers, so the others
    /// take it for failed after `nodeTimeout`.
    package func freeze(_ node: RedisClusterNode) {
        guard let process = processes.withLock({ $0[node.port] }) else { return }
        unreachable.withLock { _ = $0.frozen.insert(node.port) }
        Glibc.kill(process.processIdentifier, SIGSTOP)
    }

    /// Resumes a frozen node: a master failed over meanwhile rejoins as a replica.
    package func thaw(_ node: RedisClusterNode) {
        guard let process = processes.withLock({ $0[node.port] }) else { return }
        Glibc.kill(process.processIdentifier, SIGCONT)
        unreachable.withLock { _ = $0.frozen.remove(node.port) }
    }

    /// Waits until a replica of `master` (killed or frozen by the caller) serves all its slots,
    /// the cluster flags `master` failed and is settled again; returns the promoted node.
    package func waitForFailover(of master: RedisClusterNode, within limit: Duration = .seconds(60)) async throws -> RedisClusterNode {
        guard master.role == .master, !master.slots.isEmpty else {
            throw RedisClusterServersError.notSettled("\(master) serves no slots: pass the master as it was before the fault")
        }
        return try await RawClient.blocking { [self] in
            try waitBlocking(within: limit, for: "a replica of \(master.port) to take over") {
                let view = try settledView()
                guard view.first(where: { $0.id == master.id })?.failed == true else {
                    throw RedisClusterServersError.notSettled("\(master.port) is not flagged fail yet")
                }
                let first = master.slots[0].lowerBound
                guard let heir = view.first(where: { $0.role == .master && !$0.failed && $0.serves(slot: first) }),
                      heir.id != master.id,
                      master.slots.allSatisfy({ $0.allSatisfy(heir.serves) })
                else { throw RedisClusterServersError.notSettled("the slots of \(master.port) are not taken over yet") }
                return heir
            }
        }
    }

    /// Moves `count` slots (and their keys) from `source` to `target` with `redis-cli --cluster
    /// reshard`, then waits until the cluster is settled; returns that view.
    @discardableResult
    package func reshard(slots count: Int, from source: RedisClusterNode, to target: RedisClusterNode, within limit: Duration = .seconds(180)) async throws -> [RedisClusterNode] {
        guard let cli = Self.cliExecutable else { throw RedisClusterServersError.notInstalled }
        return try await RawClient.blocking { [self] in
            _ = try runCLI(cli, [
                "--cluster", "reshard", "127.0.0.1:\(source.port)", "--cluster-from", source.id, "--cluster-to", target.id,
                "--cluster-slots", String(count), "--cluster-yes",
            ], timeout: limit)
            return try waitBlocking(within: .seconds(60), for: "the cluster to settle after the reshard") { try settledView() }
        }
    }

    // MARK: - Starting

    private static func launchNodes(
        executable: String, password: String?, nodeTimeout: Duration, folder: URL
    ) throws -> [Int: (process: SpawnedProcess, busPort: Int)] {
        var running: [Int: (process: SpawnedProcess, busPort: Int)] = [:]
        var launched: [(port: Int, busPort: Int, process: SpawnedProcess)] = []
        // Every port probed, so that no two nodes are handed the same one and one another process
        // took is not tried again.
        var probed: Set<Int> = []
        func freshPort() throws -> Int {
            for _ in 0..<100 {
                let port = try unusedLoopbackPort()
                if probed.insert(port).inserted { return port }
            }
            throw RedisClusterServersError.didNotStart("no free loopback port")
        }
        var lastLog = ""
        do {
            for _ in 0..<5 where running.count < size {
                // All at once, then waited for: one node's start-up costs the others nothing.
                launched = []
                for _ in running.count..<size {
                    let port = try freshPort()
                    let busPort = try freshPort()
                    let arguments = nodeArguments(port: port, busPort: busPort, password: password, nodeTimeout: nodeTimeout, folder: folder)
                    launched.append((port, busPort, try SpawnedProcess(executable: executable, arguments: arguments)))
                }
                for (port, busPort, process) in launched {
                    if try RedisServer.waitUntilAnswering(port: port, process: process, password: password) {
                        running[port] = (process, busPort)
                    } else {
                        Glibc.kill(process.processIdentifier, SIGKILL)
                        RedisServer.waitForDeath(of: process.processIdentifier)
                        lastLog = (try? String(contentsOf: logFile(port: port, folder: folder), encoding: .utf8)) ?? process.output.untilEnd()
                    }
                }
                launched = []
            }
        } catch {
            for process in running.values.map(\.process) + launched.map(\.process) {
                Glibc.kill(process.processIdentifier, SIGKILL)
                RedisServer.waitForDeath(of: process.processIdentifier)
            }
            throw error
        }
        guard running.count == size else {
            for (process, _) in running.values {
                Glibc.kill(process.processIdentifier, SIGKILL)
                RedisServer.waitForDeath(of: process.processIdentifier)
            }
            throw RedisClusterServersError.didNotStart(lastLog)
        }
        return running
    }

    private static func nodeArguments(port: Int, busPort: Int, password: String?, nodeTimeout: Duration, folder: URL) -> [String] {
        var arguments = [
            "--port", String(port), "--bind", "127.0.0.1", "--daemonize", "no",
            "--cluster-enabled", "yes", "--cluster-port", String(busPort),
            "--cluster-node-timeout", String(Int((nodeTimeout / .milliseconds(1)).rounded())),
            "--cluster-config-file", folder.appendingPathComponent("nodes-\(port).conf").path,
            // The folder is the nodes' working directory, which the reaper reads; a replica writes
            // what it receives from its master to `dbfilename`, one per node so none reads another's.
            "--dir", folder.path, "--dbfilename", "dump-\(port).rdb", "--save", "", "--appendonly", "no",
            // A log file, not the output pipe, which nobody reads while the node runs.
            "--logfile", logFile(port: port, folder: folder).path, "--loglevel", "notice",
            // A replica syncs at once, not after the default 5 s: one that never synced refuses to
            // take over from a killed master.
            "--repl-diskless-sync-delay", "0",
        ]
        if let password { arguments += ["--requirepass", password, "--masterauth", password] }
        return arguments
    }

    private static func logFile(port: Int, folder: URL) -> URL {
        folder.appendingPathComponent("node-\(port).log")
    }

    // MARK: - Asking

    private var reachablePorts: [Int] {
        let (killed, frozen) = unreachable.withLock { ($0.killed, $0.frozen) }
        return ports.filter { !killed.contains($0) && !frozen.contains($0) }
    }

    /// The cluster as the reachable nodes see it, if they all say `cluster_state:ok`, agree on every
    /// node's role and slots, serve every slot, and every reachable replica is in sync; else throws
    /// `notSettled` saying what is missing.
    private func settledView() throws -> [RedisClusterNode] {
        let reachable = reachablePorts
        var agreed: (port: Int, view: [RedisClusterNode])?
        for port in reachable {
            let replies = try ask(port, [RESPCommand("CLUSTER", "INFO"), RESPCommand("CLUSTER", "NODES"), RESPCommand("INFO", "replication")])
            let info = replies[0].string ?? "\(replies[0])"
            guard info.contains("cluster_state:ok") else {
                throw RedisClusterServersError.notSettled("\(port): \(info.split(whereSeparator: \.isNewline).first ?? "")")
            }
            guard let view = RedisClusterNode.parse(clusterNodes: replies[1].string ?? "") else {
                throw RedisClusterServersError.notSettled("\(port) still shakes hands with a node")
            }
            if let agreed, agreed.view != view {
                throw RedisClusterServersError.notSettled("\(port) sees \(view), \(agreed.port) sees \(agreed.view)")
            }
            agreed = (port, view)
            let replication = replies[2].string ?? ""
            if replication.contains("role:slave"), !replication.contains("master_link_status:up") {
                throw RedisClusterServersError.notSettled("\(port) is not in sync with its master yet")
            }
        }
        guard let view = agreed?.view else { throw RedisClusterServersError.notSettled("no node is reachable") }
        guard Set(view.map(\.port)) == Set(ports) else {
            throw RedisClusterServersError.notSettled("the nodes known are \(view.map(\.port)), not \(ports)")
        }
        let served = view.filter { $0.role == .master && !$0.failed }.reduce(0) { $0 + $1.slotCount }
        guard served == Self.slotCount else { throw RedisClusterServersError.notSettled("\(served) slots served") }
        return view
    }

    /// Sends `commands` in one write to the node on `port` (after `AUTH` when there is a password)
    /// and reads their replies. The read timeout bounds a node that stopped answering.
    private func ask(_ port: Int, _ commands: [RESPCommand]) throws -> [RESPValue] {
        try BlockingRedisExchange.replies(port: port, password: password, commands)
    }

    /// Looks until `look` returns (it throws while what is awaited has not happened) or `limit`
    /// has passed; then throws what the last look said.
    private func waitBlocking<T>(within limit: Duration, for awaited: String, _ look: () throws -> T) throws -> T {
        let clock = ContinuousClock()
        let end = clock.now + limit
        while true {
            do {
                return try look()
            } catch {
                guard clock.now < end else { throw RedisClusterServersError.timedOut("waited \(limit) for \(awaited); last look: \(error)") }
            }
            usleep(50_000)
        }
    }

    /// Runs `redis-cli` with `arguments` (the password first, when there is one), killing it
    /// after `timeout`; returns its output, or throws it when it failed.
    private func runCLI(_ cli: String, _ arguments: [String], timeout: Duration) throws -> String {
        // Its output is read while it runs: a reshard prints a line per slot, more than the pipe
        // holds, and a full pipe would stop it.
        let process = try SpawnedProcess(executable: cli, arguments: (password.map { ["-a", $0, "--no-auth-warning"] } ?? []) + arguments)
        let timedOut = process.waitForExit(timeout: timeout) == nil
        if timedOut { process.kill() }
        let text = process.output.untilEnd()
        let lastLines = text.split(whereSeparator: \.isNewline).suffix(15).joined(separator: "\n")
        if timedOut { throw RedisClusterServersError.toolFailed("redis-cli \(arguments[0...1].joined(separator: " ")) ran past \(timeout):\n\(lastLines)") }
        guard process.terminationStatus == 0 else {
            throw RedisClusterServersError.toolFailed("redis-cli \(arguments[0...1].joined(separator: " ")) failed:\n\(lastLines)")
        }
        return text
    }
}

package enum RedisClusterServersError: Error, CustomStringConvertible {
    case notInstalled
    case didNotStart(String)
    case toolFailed(String)
    case notSettled(String)
    case timedOut(String)

    package var description: String {
        switch self {
        case .notInstalled: "redis-server or redis-cli is not installed (make test installs Debian's redis-server)"
        case .didNotStart(let output): "a cluster node did not start: \(output)"
        case .toolFailed(let output): output
        case .notSettled(let what): "the cluster is not settled: \(what)"
        case .timedOut(let what): what
        }
    }
}
