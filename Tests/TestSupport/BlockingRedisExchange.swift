import RESP

/// One exchange with a `redis-server` over a blocking socket of its own, for test support code
/// that runs on a thread of its own (starting servers, waiting for a cluster to settle): the
/// commands go out in one write, `AUTH` first when there is a password, and their replies come
/// back in order, read with the project's RESP parser. Redirects and error replies are the
/// caller's to read.
package enum BlockingRedisExchange {
    /// The replies to `commands`; `AUTH`'s is not among them: it is checked here.
    package static func replies(port: Int, password: String?, _ commands: [RESPCommand]) throws -> [RESPValue] {
        let client = try RawClient(port: port, readTimeoutSeconds: 10)
        defer { client.close() }
        let sent = (password.map { [RESPCommand("AUTH", .string($0))] } ?? []) + commands
        var bytes: [UInt8] = []
        for command in sent { command.encode(into: &bytes) }
        try client.sendBlocking(bytes)
        var parser = RESPReplyParser()
        var input: [UInt8] = []
        var read = 0
        var replies: [RESPValue] = []
        while replies.count < sent.count {
            let (event, consumed) = try input[read...].withUnsafeBytes { try parser.parse($0) }
            read += consumed
            if case .reply(let reply) = event {
                replies.append(reply)
                continue
            }
            let more = try client.receiveSomeBlocking()
            if more.isEmpty { throw RawClientError.closed }
            input.removeFirst(read)
            read = 0
            input += more
        }
        if password != nil {
            guard replies[0].string == "OK" else { throw BlockingRedisExchangeError.authenticationRefused(port: port, reply: replies[0]) }
            replies.removeFirst()
        }
        return replies
    }
}

/// The server on `port` refused the password.
enum BlockingRedisExchangeError: Error, CustomStringConvertible {
    case authenticationRefused(port: Int, reply: RESPValue)

    var description: String {
        switch self {
        case .authenticationRefused(let port, let reply): "the redis-server on \(port) refused AUTH: \(reply)"
        }
    }
}
