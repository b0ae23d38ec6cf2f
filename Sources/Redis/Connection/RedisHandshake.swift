import RESP

/// The commands sent first on every connection (`AUTH`, or `PING` when the URL has no password,
/// then `SELECT`), and how their replies are judged.
///
/// Without a password `PING` proves the server does not want one: a Redis that requires it
/// answers `-NOAUTH`, and the connection reports it at once, as a refused `AUTH` would be,
/// instead of counting as connected and failing on its first command.
///
/// Both are written at once (pipelined, one round trip) and their replies checked in order. A
/// refusal of the credentials or database is permanent: retrying with the same URL cannot
/// succeed, and hammering a server with a wrong password looks like an attack. Any other error
/// (`-ERR max number of clients reached`, `-LOADING`) is worth another attempt.
struct RedisHandshake: Sendable, Equatable {
    enum Step: Sendable, Equatable {
        case authenticate
        case checkAccess
        case selectDatabase
    }

    let steps: [Step]
    /// The encoded commands, written at once; never empty (`AUTH` or `PING` comes first).
    let bytes: [UInt8]

    /// `selectsDatabase` is false for the subscriber: channels do not belong to a database.
    init(url: RedisURL, selectsDatabase: Bool) {
        var steps: [Step] = []
        var bytes: [UInt8] = []
        if let password = url.password {
            steps.append(.authenticate)
            let arguments: [RESPArgument] = url.username.map { ["AUTH", .string($0), .string(password)] } ?? ["AUTH", .string(password)]
            RESPCommand(arguments: arguments).encode(into: &bytes)
        } else {
            steps.append(.checkAccess)
            RESPCommand("PING").encode(into: &bytes)
        }
        if selectsDatabase && url.database != 0 {
            steps.append(.selectDatabase)
            RESPCommand("SELECT", .integer(Int64(url.database))).encode(into: &bytes)
        }
        self.steps = steps
        self.bytes = bytes
    }

    /// Why `reply` fails `step`, or `nil` when it succeeds.
    static func failure(of step: Step, reply: RESPValue) -> RedisClientError? {
        guard let message = reply.errorMessage, let code = reply.errorCode else { return nil }
        switch step {
        case .authenticate:
            // Redis 6+ answers WRONGPASS; older servers "-ERR invalid password" and "-ERR Client
            // sent AUTH, but no password is set".
            if code == "WRONGPASS" || code == "NOAUTH" || (code == "ERR" && message.lowercased().contains("password")) {
                return RedisClientError.authenticationFailed.detailed("Redis refused AUTH: \(message)")
            }
        case .checkAccess, .selectDatabase:
            if code == "NOAUTH" {
                return RedisClientError.authenticationFailed.detailed("Redis requires a password (REDIS_URL has none): \(message)")
            }
            if step == .selectDatabase && code == "ERR" {
                return RedisClientError.databaseRefused.detailed("Redis refused SELECT: \(message)")
            }
        }
        return RedisClientError.handshakeFailed.detailed("Redis answered the handshake with: \(message)")
    }
}
