import Fleet
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
        if case .encoded(let bytes, let leadingReplies, _) = request {
            sent.append(Self.firstCommandName(in: bytes))
            return try await exchange(bytes, replies: leadingReplies + 1)
        }
        var commands: [RESPCommand]
        switch request {
        case .command(let plain):
            commands = [plain]
        case .script(let script, let keys, let arguments):
            commands = [RESPCommand(arguments: ["EVAL", .string(script.body), .integer(Int64(keys.count))] + keys + arguments)]
        case .transaction(let queued):
            commands = [RESPCommand("MULTI")] + queued + [RESPCommand("EXEC")]
        case .asking, .encoded:
            // A single server: nothing to ask (and an encoded request was sent above).
            throw RedisClientError.protocolError
        }
        if case .string(let name)? = commands[0].arguments.first { sent.append(name) }
        var bytes: [UInt8] = []
        for command in commands {
            command.encode(into: &bytes)
        }
        return try await exchange(bytes, replies: commands.count)
    }

    /// Sends `bytes` and reads `replies` replies; the last is the answer (a transaction's `OK`
    /// and `QUEUED`s come first, its `EXEC` last).
    private func exchange(_ bytes: [UInt8], replies: Int) async throws(RedisClientError) -> RESPValue {
        await enter()
        defer { leave() }
        do {
            try await client.send(bytes)
            var last = try await reply()
            for _ in 1..<replies {
                last = try await reply()
            }
            return last
        } catch {
            throw RedisClientError.connectionLost
        }
    }

    /// The name of the first command in encoded `bytes` (`*<n>\r\n$<length>\r\n<name>\r\n…`).
    private static func firstCommandName(in bytes: [UInt8]) -> String {
        let lines = bytes.split(separator: UInt8(ascii: "\r"), maxSplits: 3, omittingEmptySubsequences: false)
        guard lines.count > 2 else { return "" }
        return String(decoding: lines[2].drop { $0 == UInt8(ascii: "\n") }, as: UTF8.self)
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
