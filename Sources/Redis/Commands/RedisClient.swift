import EventLoop
import RESP
import Timekeeping

/// A Redis client with one pipelined command connection per event loop.
///
/// A caller on one of the loops uses that loop's connection, so its command goes out and its
/// reply comes back on its own thread with no hop; a caller elsewhere uses the first loop's.
/// Each connection is a `RedisCommandConnectionStateMachine` in a thin shell: the machine
/// decides deadlines, late replies, reconnects and the handshake, and is tested on a manual
/// clock; the shell only connects, writes, closes, arms one timer and answers callers.
package final class RedisClient: RedisCommandRunner {
    package let url: RedisURL
    package let loops: [EventLoop]
    private let connections: [RedisCommandConnection]

    /// `loops` must not be empty. `time` is the line deadlines are on (`run`'s `deadline`), and
    /// `observer` hears of every command and connection change, on the connection's loop.
    package init(
        url: RedisURL, loops: [EventLoop], configuration: RedisCommandConnectionConfiguration = .init(),
        time: any TimeSource, observer: RedisClientObserver = RedisClientObserver()
    ) {
        precondition(!loops.isEmpty, "a Redis client needs at least one loop")
        self.url = url
        self.loops = loops
        connections = loops.map { loop in
            RedisCommandConnection(url: url, loop: loop, configuration: configuration, time: time, observer: observer)
        }
    }

    /// Opens one command connection per loop. Commands run before a connection is ready wait
    /// for it (bounded by their deadlines); commands run before `start` fail at once.
    package func start() {
        for connection in connections {
            connection.loop.execute { connection.start() }
        }
    }

    /// Runs `request` on the current loop's connection (`EventLoop.current`), or `loops[0]`'s
    /// when called off a loop.
    ///
    /// `deadline` is on `time`'s line (`time.now + budget`). Error replies (`-ERR …`) come back
    /// as a `RESPValue`, not thrown. A cancelled caller is resumed at once with `.cancelled`; its
    /// reply is later read and dropped, so the pipeline stays in step.
    package func run(_ request: RedisRequest, deadline: Duration) async throws(RedisClientError) -> RESPValue {
        if Task.isCancelled { throw .cancelled }
        return try await connectionForCaller().run(request, deadline: deadline).get()
    }

    /// Whether any command connection is ready (its handshake done).
    package var isConnected: Bool {
        connections.contains { $0.ready.load(ordering: .relaxed) }
    }

    /// Stops reconnecting and accepting commands; waits until each connection has the replies
    /// of its written commands (or their deadlines passed), then closed.
    package func shutdown() async {
        await withTaskGroup(of: Void.self) { group in
            for connection in connections {
                group.addTask {
                    await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                        // A stopped loop has closed every socket already.
                        if !connection.loop.execute({ connection.shutdown(continuation) }) { continuation.resume() }
                    }
                }
            }
        }
    }

    private func connectionForCaller() -> RedisCommandConnection {
        if let current = EventLoop.current, let connection = connections.first(where: { $0.loop === current }) {
            return connection
        }
        return connections[0]
    }
}
