import RESP
import Testing
import TestSupport

/// A plain RESP connection for looking at the server from outside the client under test.
final class RawRedis: Sendable {
    let client: RawClient

    init(_ server: RedisServer) throws {
        client = try RawClient(port: server.port, readTimeoutSeconds: 10)
    }

    deinit { client.close() }

    /// Sends `command` and reads its one reply.
    func call(_ command: RESPCommand) async throws -> RESPValue {
        var bytes: [UInt8] = []
        command.encode(into: &bytes)
        try await client.send(bytes)
        var parser = RESPReplyParser()
        var input: [UInt8] = []
        while true {
            let more = try await client.receiveSome()
            if more.isEmpty { throw RawClientError.closed }
            input += more
            let (event, consumed) = try input.withUnsafeBytes { try parser.parse($0) }
            input.removeFirst(consumed)
            if case .reply(let reply) = event {
                #expect(input.isEmpty, "one command, one reply")
                return reply
            }
        }
    }

    func call(_ name: String, _ arguments: RESPArgument...) async throws -> RESPValue {
        try await call(RESPCommand(arguments: [.string(name)] + arguments))
    }

    /// A number from `INFO`'s `name:value` lines.
    func info(_ field: String) async throws -> Int? {
        let text = try await call("INFO").string ?? ""
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("\(field):") {
            return Int(line.dropFirst(field.count + 1))
        }
        return nil
    }
}

