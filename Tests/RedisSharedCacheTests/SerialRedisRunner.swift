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
    /// Commands sent, by name (`EVAL` for scripts), for tests that count them.
    private(set) var sent: [String] = []
    /// The actor is reentrant across the socket's awaits: one command at a time goes through
    /// this turnstile, so each reply reaches its own caller.
    private var busy = false
    private var queued: [CheckedContinuation<Void, Never>] = []

    init(port: Int) throws {
        client = try RawClient(port: port, readTimeoutSeconds: 10)
    }

    func run(_ request: RedisRequest, deadline: Duration) async throws(RedisClientError) -> RESPValue {
        let command: RESPCommand
        switch request {
        case .command(let plain):
            command = plain
        case .script(let script, let keys, let arguments):
            command = RESPCommand(arguments: ["EVAL", .string(script.body), .integer(Int64(keys.count))] + keys + arguments)
        case .asking:
            // A single server: nothing to ask.
            throw RedisClientError.protocolError
        }
        if case .string(let name)? = command.arguments.first { sent.append(name) }
        var bytes: [UInt8] = []
        command.encode(into: &bytes)
        await enter()
        defer { leave() }
        do {
            try await client.send(bytes)
            return try await reply()
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
