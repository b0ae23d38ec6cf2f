import RedisSharedCache
import Redis
import RESP
import TestSupport

/// A plain one-command-at-a-time runner over a blocking socket, for testing the scripts and the
/// page format against a real `redis-server` apart from the pipelined client. Deadlines are not
/// enforced here: the socket's read timeout bounds a test instead.
actor SerialRedisRunner: RedisCommandRunner {
    private let client: RawClient
    private var parser = RESPReplyParser()
    private var input: [UInt8] = []
    /// Requests sent, by their command's name (`EVAL` for scripts, `MULTI` for transactions), for
    /// tests that count them.
    private(set) var sent: [String] = []
    /// The actor is reentrant across the socket's awaits: one command at a time goes through
    /// this turnstile, so each reply reaches its own caller.
    private var busy = false
    private var queued: [CheckedContinuation<Void, Never>] = []

    init(port: Int) throws {
        client = try RawClient(port: port, readTimeoutSeconds: 10)
    }

    func run(_ request: RedisRequest, deadline: Duration) async throws(RedisClientError) -> RESPValue {
        var commands: [RESPCommand]
        switch request {
        case .command(let plain):
            commands = [plain]
        case .script(let script, let keys, let arguments):
            commands = [RESPCommand(arguments: ["EVAL", .string(script.body), .integer(Int64(keys.count))] + keys + arguments)]
        case .transaction(let queued):
            commands = [RESPCommand("MULTI")] + queued + [RESPCommand("EXEC")]
        case .asking:
            // A single server: nothing to ask.
            throw RedisClientError.protocolError
        }
        if case .string(let name)? = commands[0].arguments.first { sent.append(name) }
        var bytes: [UInt8] = []
        for command in commands {
            command.encode(into: &bytes)
        }
        await enter()
        defer { leave() }
        do {
            try await client.send(bytes)
            // A transaction's `OK` and `QUEUED`s come first; its `EXEC` answers last.
            var last = try await reply()
            for _ in 1..<commands.count {
                last = try await reply()
            }
            return last
        } catch {
            throw RedisClientError.connectionLost
        }
    }

    private func enter() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { queued.append($0) }
    }

    private func leave() {
        if queued.isEmpty { busy = false } else { queued.removeFirst().resume() }
    }

    private func reply() async throws -> RESPValue {
        while true {
            if !input.isEmpty {
                let (event, used) = try input.withUnsafeBytes { try parser.parse($0) }
                input.removeFirst(used)
                if case .reply(let value) = event { return value }
            }
            let bytes = try await client.receiveSome()
            if bytes.isEmpty { throw RawClientError.closed }
            input += bytes
        }
    }
}
