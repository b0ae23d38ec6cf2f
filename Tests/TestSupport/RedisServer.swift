import Foundation
import RESP

#if canImport(Glibc)
import Glibc
#endif

/// A real `redis-server` for tests, on 127.0.0.1 and a free port, with no persistence and its
/// working folder in a temporary directory (nothing lands in the clone). Stopped at `stop()` or
/// when the value goes away, SIGKILL even when frozen, so no test leaves one behind.
///
/// The port is found by probing: `--port 0` would turn TCP off, so a port the kernel just handed
/// out (bound, read back, closed) is given to the server, and another is tried if it lost a race.
///
/// With `cluster`, the server is a Redis Cluster of one node holding every slot: Redis then holds
/// scripts to the cluster's rules (every key a script touches in one slot), which a plain server
/// does not check.
///
/// `@unchecked Sendable`: `process` and `port` change only in `init` and `restart()`, which a
/// test calls between its own requests, never concurrently with them.
package final class RedisServer: @unchecked Sendable {
    package private(set) var port: Int
    package let password: String?
    package let cluster: Bool
    private var process: SpawnedProcess
    private let folder: URL

    /// Where `redis-server` is, or nil when it is not installed.
    package static var executable: String? {
        ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].first { (path: String) in access(path, X_OK) == 0 }
    }

    package init(password: String? = nil, cluster: Bool = false) throws {
        self.password = password
        self.cluster = cluster
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pd-redis-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        (process, port) = try Self.start(password: password, cluster: cluster, folder: folder, port: nil)
        if cluster {
            do {
                try takeEverySlot()
            } catch {
                stop()
                throw error
            }
        }
    }

    /// Starts a server on a thread of its own: starting one waits for it to answer, which must
    /// not hold one of the few threads Swift's concurrency runs every test on.
    package static func started(password: String? = nil, cluster: Bool = false) async throws -> RedisServer {
        try await RawClient.blocking { try RedisServer(password: password, cluster: cluster) }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Kills the server (SIGKILL works on a frozen one too) and waits for it.
    package func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        Self.waitForDeath(of: process.processIdentifier)
    }

    /// Waits (at most a few seconds) until `pid` is gone or a zombie: dead, its port and files
    /// released. Not `Process.waitUntilExit()`: it waits for Foundation to notice the exit, which
    /// never happens when something else in the test process reaped the child first, and then it
    /// holds one of the few threads every async test runs on, forever.
    static func waitForDeath(of pid: Int32) {
        for _ in 0..<5000 {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")")
            else { return }
            let state = stat[stat.index(after: close)...].drop { $0 == " " }.first
            if state == "Z" || state == "X" { return }
            usleep(1000)
        }
    }

    /// Suspends the server (SIGSTOP): connections stay open and nothing answers.
    package func freeze() { kill(process.processIdentifier, SIGSTOP) }

    /// Resumes a frozen server.
    package func thaw() { kill(process.processIdentifier, SIGCONT) }

    /// Starts it again on the same port after `stop()` (empty: nothing was persisted).
    package func restart() throws {
        stop()
        (process, port) = try Self.start(password: password, cluster: cluster, folder: folder, port: port)
    }

    /// The one node of a cluster takes all 16,384 slots; returns once the cluster says it is ok.
    private func takeEverySlot() throws {
        let added = try BlockingRedisExchange.replies(port: port, password: password, [RESPCommand("CLUSTER", "ADDSLOTSRANGE", "0", "16383")])
        guard added[0].string == "OK" else { throw RedisServerError.didNotStart("CLUSTER ADDSLOTSRANGE: \(added[0])") }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let info = try BlockingRedisExchange.replies(port: port, password: password, [RESPCommand("CLUSTER", "INFO")])
            if info[0].string?.contains("cluster_state:ok") == true { return }
            usleep(20_000)
        }
        throw RedisServerError.didNotStart("the one-node cluster never reported cluster_state:ok")
    }

    private static func start(password: String?, cluster: Bool, folder: URL, port fixed: Int?) throws -> (SpawnedProcess, Int) {
        guard let executable else { throw RedisServerError.notInstalled }
        var lastOutput = ""
        for _ in 0..<5 {
            let port = try fixed ?? unusedLoopbackPort()
            var arguments = [
                "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--dir", folder.path, "--daemonize", "no", "--loglevel", "warning", "--databases", "16",
            ]
            if let password { arguments += ["--requirepass", password] }
            if cluster {
                // The cluster bus would be the port plus 10,000, which may be taken or past 65,535.
                arguments += [
                    "--cluster-enabled", "yes", "--cluster-port", String(try unusedLoopbackPort()),
                    "--cluster-config-file", folder.appendingPathComponent("nodes-\(port).conf").path,
                ]
            }
            let process = try SpawnedProcess(executable: executable, arguments: arguments)
            if try waitUntilAnswering(port: port, process: process, password: password) { return (process, port) }
            kill(process.processIdentifier, SIGKILL)
            waitForDeath(of: process.processIdentifier)
            lastOutput = process.output.untilEnd()
        }
        throw RedisServerError.didNotStart(lastOutput)
    }

    /// True once the port accepts connections; false if the process exited (the port was taken).
    static func waitUntilAnswering(port: Int, process: SpawnedProcess, password: String?) throws -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            guard process.isRunning else { return false }
            if let client = try? RawClient(port: port, readTimeoutSeconds: 2) {
                defer { client.close() }
                // Another test's server may have taken the port while ours failed to bind: only a
                // server reporting our process's id is ours. What answers may not even speak RESP
                // (another cluster node's bus port): an error is not ours either.
                return (try? answeringProcessID(client, password: password)) == process.processIdentifier
            }
            usleep(10_000)
        }
        return false
    }
}

/// The `process_id` the server on `client`'s port reports in `INFO server`.
private func answeringProcessID(_ client: RawClient, password: String?) throws -> Int32? {
    var command = ""
    if let password { command += "*2\r\n$4\r\nAUTH\r\n$\(password.utf8.count)\r\n\(password)\r\n" }
    command += "*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n"
    try client.sendBlocking(Array(command.utf8))
    var text = ""
    while !text.contains("\r\nexecutable:") && !text.hasPrefix("-") {
        let bytes = try client.receiveSomeBlocking()
        if bytes.isEmpty { break }
        text += String(decoding: bytes, as: UTF8.self)
    }
    guard let line = text.split(separator: "\r\n").first(where: { $0.hasPrefix("process_id:") }) else { return nil }
    return Int32(line.dropFirst("process_id:".count))
}

package enum RedisServerError: Error, CustomStringConvertible {
    case notInstalled
    case didNotStart(String)

    package var description: String {
        switch self {
        case .notInstalled: "redis-server is not installed (make test installs Debian's redis-server)"
        case .didNotStart(let output): "redis-server did not start: \(output)"
        }
    }
}
