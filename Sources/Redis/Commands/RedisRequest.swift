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

    /// Appends the command as first sent.
    func encode(into buffer: inout [UInt8]) {
        switch self {
        case .command(let command):
            command.encode(into: &buffer)
        case .script(let script, let keys, let arguments):
            scriptCommand("EVALSHA", .string(script.sha1), keys, arguments).encode(into: &buffer)
        }
    }

    /// Appends the `EVAL` that replaces an `EVALSHA` Redis did not know: one command instead of
    /// `SCRIPT LOAD` + `EVALSHA`, since `EVAL` also caches the script for the next callers.
    func encodeReload(into buffer: inout [UInt8]) {
        guard case .script(let script, let keys, let arguments) = self else { return encode(into: &buffer) }
        scriptCommand("EVAL", .string(script.body), keys, arguments).encode(into: &buffer)
    }

    var isScript: Bool {
        if case .script = self { return true }
        return false
    }

    private func scriptCommand(
        _ name: String, _ script: RESPArgument, _ keys: [RESPArgument], _ arguments: [RESPArgument]
    ) -> RESPCommand {
        RESPCommand(arguments: [.string(name), script, .integer(Int64(keys.count))] + keys + arguments)
    }
}
