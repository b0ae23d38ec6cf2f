import RESP
import Redis

typealias CommandMachine = RedisCommandConnectionStateMachine

/// The wire bytes of a string written with `\r\n` escapes.
func wire(_ text: String) -> [UInt8] {
    Array(text.utf8)
}

/// The bytes of commands encoded back to back, as a pipelined write.
func encoded(_ commands: RESPCommand...) -> [UInt8] {
    var bytes: [UInt8] = []
    for command in commands { command.encode(into: &bytes) }
    return bytes
}

func ms(_ value: Int) -> Duration {
    .milliseconds(value)
}

/// Settings with round numbers, so every expected instant in a test is plain arithmetic.
let testConfiguration = RedisCommandConnectionConfiguration(
    connectTimeout: .seconds(1),
    unansweredReplyLimit: .seconds(2),
    maxPendingCommands: 8,
    backoff: ReconnectBackoff(base: ms(100), cap: .seconds(1)))

let plainURL = RedisURL(host: "redis.test", port: 6379)
let securedURL = RedisURL(host: "redis.test", port: 6380, password: "pw", database: 2)

/// A machine whose jitter always draws the top of its range, so each delay is the ceiling.
func commandMachine(
    _ url: RedisURL = plainURL,
    configuration: RedisCommandConnectionConfiguration = testConfiguration,
    random: any RandomNumberGenerator & Sendable = FixedRandom(value: .max)
) -> CommandMachine {
    CommandMachine(url: url, configuration: configuration, random: random)
}

/// The handshake of a URL without a password: `PING`, which proves the server wants none.
let accessCheck = encoded(RESPCommand("PING"))
/// The server's answer to it outside subscribed mode.
let accessGranted = wire("+PONG\r\n")

/// A machine on `plainURL` that connected at 0 ms, passed the access check and is ready.
func readyCommandMachine(configuration: RedisCommandConnectionConfiguration = testConfiguration) -> CommandMachine {
    var machine = commandMachine(configuration: configuration)
    _ = machine.start(now: .zero)
    _ = machine.connected(now: .zero)
    _ = machine.received(accessGranted, now: .zero)
    return machine
}

extension RedisCommandConnectionStateMachine {
    /// Submits `GET key`, for tests that only need some command in the pipeline.
    mutating func get(_ key: String, deadline: Duration, now: Duration) -> (id: RedisRequestID, actions: [Action]) {
        submit(.command(RESPCommand("GET", .string(key))), deadline: deadline, now: now)
    }
}
