import RESP

/// What a caller asks the command connection to run.
package enum RedisRequest: Sendable, Hashable {
    /// Any command; its reply, error replies included, goes back to the caller as it came.
    case command(RESPCommand)
    /// `EVALSHA sha1 numkeys keys… arguments…`; on `NOSCRIPT` the connection sends the body
    /// once (`EVAL`) and the caller gets that reply instead. The `EVAL` joins the end of the
    /// pipeline, so it runs after commands submitted later than the script: a script must not
    /// rely on running before them (each of ours is atomic on its own keys).
    case script(RedisScript, keys: [RESPArgument], arguments: [RESPArgument])
    /// `ASKING` and the request in one write, so no other caller's command comes between them
    /// on the connection: a Redis Cluster node importing a slot serves the next command only
    /// after `ASKING`. The caller gets the request's reply; `ASKING`'s is read and dropped.
    indirect case asking(RedisRequest)
    /// `MULTI`, the commands, `EXEC`, in one write: Redis runs the commands as one step, with no
    /// script to run. The caller gets `EXEC`'s reply (an array of the commands' replies); when a
    /// command was refused as it was queued (a Redis Cluster's `MOVED`, say), it gets that error
    /// instead of the `EXECABORT` that follows, so a redirect is followed like any other.
    case transaction([RESPCommand])
    /// Commands the caller encoded itself (``RESPCommand/appendHeader(arguments:to:)``), sent as
    /// they are, for a request on the hot path: no command values are made. The last command's
    /// reply is the caller's; the `leadingReplies` before it are read and dropped, and an error
    /// among them is the answer as a transaction's is (the form such a request usually has).
    /// `routingKey` names the hash slot of every key in it.
    case encoded([UInt8], leadingReplies: Int, routingKey: RESPArgument?)

    /// Appends the command as first sent.
    func encode(into buffer: inout [UInt8]) {
        switch self {
        case .command(let command):
            command.encode(into: &buffer)
        case .script(let script, let keys, let arguments):
            scriptCommand("EVALSHA", .string(script.sha1), keys, arguments).encode(into: &buffer)
        case .asking(let request):
            RESPCommand("ASKING").encode(into: &buffer)
            request.encode(into: &buffer)
        case .transaction(let commands):
            // Each command reserves exactly what it adds: reserved once here instead, the buffer
            // is not reallocated once per command.
            buffer.reserveCapacity(
                buffer.count + commands.reduce(Self.multi.encodedCount + Self.exec.encodedCount) { $0 + $1.encodedCount })
            Self.multi.encode(into: &buffer)
            for command in commands {
                command.encode(into: &buffer)
            }
            Self.exec.encode(into: &buffer)
        case .encoded(let bytes, _, _):
            buffer.append(contentsOf: bytes)
        }
    }

    /// The command as first sent, in one buffer: a request its caller encoded is that buffer
    /// itself, not a copy.
    var encoded: [UInt8] {
        if case .encoded(let bytes, _, _) = self { return bytes }
        var buffer: [UInt8] = []
        encode(into: &buffer)
        return buffer
    }

    private static let multi = RESPCommand("MULTI")
    private static let exec = RESPCommand("EXEC")

    /// Appends the `EVAL` that replaces an `EVALSHA` Redis did not know: one command instead of
    /// `SCRIPT LOAD` + `EVALSHA`, since `EVAL` also caches the script for the next callers.
    func encodeReload(into buffer: inout [UInt8]) {
        switch self {
        case .command, .transaction, .encoded:
            encode(into: &buffer)
        case .script(let script, let keys, let arguments):
            scriptCommand("EVAL", .string(script.body), keys, arguments).encode(into: &buffer)
        case .asking(let request):
            RESPCommand("ASKING").encode(into: &buffer)
            request.encodeReload(into: &buffer)
        }
    }

    var isScript: Bool {
        switch self {
        case .command, .transaction, .encoded: false
        case .script: true
        case .asking(let request): request.isScript
        }
    }

    /// Replies that come before the request's own, read and dropped (`ASKING`'s; `MULTI`'s and
    /// each queued command's `QUEUED`).
    var leadingReplies: Int {
        switch self {
        case .command, .script: 0
        case .asking(let request): 1 + request.leadingReplies
        case .transaction(let commands): 1 + commands.count
        case .encoded(_, let leadingReplies, _): leadingReplies
        }
    }

    /// The key that names the request's hash slot on a Redis Cluster: a script's first key, or a
    /// command's first argument unless the command takes no key. `nil`: any node will do.
    package var routingKey: RESPArgument? {
        switch self {
        case .command(let command):
            guard command.arguments.count > 1, case .string(let name) = command.arguments[0],
                  !Self.keylessCommands.contains(name.uppercased())
            else { return nil }
            return command.arguments[1]
        case .script(_, let keys, _):
            return keys.first
        case .asking(let request):
            return request.routingKey
        case .transaction(let commands):
            return commands.lazy.compactMap { RedisRequest.command($0).routingKey }.first
        case .encoded(_, _, let routingKey):
            return routingKey
        }
    }

    /// Commands this client sends whose first argument is not a key.
    private static let keylessCommands: Set<String> = [
        "PING", "ECHO", "AUTH", "HELLO", "SELECT", "INFO", "CLUSTER", "ASKING", "READONLY", "TIME", "CLIENT", "COMMAND",
        "CONFIG", "SCRIPT", "PUBLISH", "SPUBLISH", "FLUSHALL", "FLUSHDB", "DBSIZE",
    ]

    private func scriptCommand(
        _ name: String, _ script: RESPArgument, _ keys: [RESPArgument], _ arguments: [RESPArgument]
    ) -> RESPCommand {
        RESPCommand(arguments: [.string(name), script, .integer(Int64(keys.count))] + keys + arguments)
    }
}

/// A Lua script run with `EVALSHA`, carrying its body so the connection can reload it.
///
/// Redis forgets its script cache on a restart, a failover or `SCRIPT FLUSH`; keeping the body
/// next to the digest lets the command connection answer `NOSCRIPT` by itself instead of every
/// caller handling it.
package struct RedisScript: Sendable, Hashable {
    /// The script's source, sent only when Redis does not know it.
    package let body: String
    /// The SHA-1 of `body` in lowercase hexadecimal: the name `EVALSHA` uses.
    package let sha1: String

    package init(_ body: String) {
        self.body = body
        self.sha1 = SHA1.hexDigest(of: Array(body.utf8))
    }
}
