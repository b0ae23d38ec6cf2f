import RESP
import Redis
import Testing

@Suite("Command connection: connect and handshake")
struct CommandHandshakeTests {
    @Test func passwordAndDatabaseAreSentAndCheckedBeforeQueuedCommands() {
        var machine = commandMachine(securedURL)
        #expect(machine.start(now: .zero) == [.connect(host: "redis.test", port: 6380), .armTimer(at: .seconds(1))])
        #expect(machine.connected(now: ms(5)) == [.write(encoded(RESPCommand("AUTH", "pw"), RESPCommand("SELECT", 2)))])

        // Submitted during the handshake: queued, its deadline now the earliest instant.
        let get = machine.get("k", deadline: ms(300), now: ms(6))
        #expect(get.actions == [.armTimer(at: ms(300))])
        #expect(!machine.isConnected)

        #expect(machine.received(wire("+OK\r\n"), now: ms(7)) == [])
        #expect(machine.received(wire("+OK\r\n"), now: ms(8)) == [.connected, .write(encoded(RESPCommand("GET", "k")))])
        #expect(machine.isConnected)
        #expect(machine.received(wire("$1\r\nv\r\n"), now: ms(9)) == [.succeed(get.id, .bulkString(wire("v"))), .cancelTimer])
    }

    @Test func aclUserLogsInWithNameAndPassword() {
        var machine = commandMachine(RedisURL(host: "h", username: "svc", password: "pw"))
        _ = machine.start(now: .zero)
        #expect(machine.connected(now: .zero) == [.write(encoded(RESPCommand("AUTH", "svc", "pw")))])
        #expect(machine.received(wire("+OK\r\n"), now: ms(1)) == [.connected, .cancelTimer])
    }

    /// Without a password a `PING` proves the server wants none before the connection counts as
    /// connected.
    @Test func withoutPasswordAPingIsTheHandshake() {
        var machine = commandMachine()
        _ = machine.start(now: .zero)
        #expect(machine.connected(now: ms(1)) == [.write(accessCheck)])
        #expect(machine.received(accessGranted, now: ms(2)) == [.connected, .cancelTimer])
    }

    /// A server that wants a password the URL does not give: reported at connect as an
    /// authentication failure (permanent), not as a connection lost on the first command.
    @Test func withoutPasswordAProtectedServerIsAnAuthenticationFailureAtConnect() {
        var machine = commandMachine()
        _ = machine.start(now: .zero)
        _ = machine.connected(now: ms(1))
        let actions = machine.received(wire("-NOAUTH Authentication required.\r\n"), now: ms(2))
        #expect(actions == [.close, .connectAttemptFailed(.authenticationFailed, reconnectAt: nil), .cancelTimer])
        guard case .connectAttemptFailed(let error, _) = actions[1] else { return }
        #expect(error.isPermanent)
        #expect(error.detail.contains("REDIS_URL has none"))
    }

    @Test(arguments: [
        "-WRONGPASS invalid username-password pair or user is disabled.\r\n",
        "-ERR invalid password\r\n",
        "-ERR AUTH <password> called without any password configured for the default user.\r\n",
    ])
    func refusedAuthIsPermanentAndSurfacedToCallers(_ refusal: String) {
        var machine = commandMachine(securedURL)
        _ = machine.start(now: .zero)
        _ = machine.connected(now: ms(1))
        let queued = machine.get("k", deadline: ms(500), now: ms(2))
        let actions = machine.received(wire(refusal + "-NOAUTH Authentication required.\r\n"), now: ms(3))
        #expect(actions == [
            .close, .fail(queued.id, .authenticationFailed),
            .connectAttemptFailed(.authenticationFailed, reconnectAt: nil), .cancelTimer,
        ])
        // No retry, ever; every later request fails with the same reason.
        #expect(machine.timerFired(now: .seconds(60)) == [])
        let later = machine.get("k", deadline: .seconds(61), now: .seconds(60))
        #expect(later.actions == [.fail(later.id, .authenticationFailed)])
    }

    @Test func refusedSelectIsPermanent() {
        var machine = commandMachine(securedURL)
        _ = machine.start(now: .zero)
        _ = machine.connected(now: ms(1))
        let actions = machine.received(wire("+OK\r\n-ERR DB index is out of range\r\n"), now: ms(2))
        #expect(actions == [.close, .connectAttemptFailed(.databaseRefused, reconnectAt: nil), .cancelTimer])
        guard case .connectAttemptFailed(let error, _) = actions[1] else { return }
        #expect(error.isPermanent)
        #expect(error.detail.contains("DB index is out of range"))
    }

    @Test func selectWithoutPasswordOnAProtectedServerIsAnAuthenticationFailure() {
        var machine = commandMachine(RedisURL(host: "h", database: 3))
        _ = machine.start(now: .zero)
        #expect(machine.connected(now: .zero) == [.write(encoded(RESPCommand("PING"), RESPCommand("SELECT", 3)))])
        #expect(machine.received(wire("-NOAUTH Authentication required.\r\n"), now: ms(1))
            == [.close, .connectAttemptFailed(.authenticationFailed, reconnectAt: nil), .cancelTimer])
    }

    @Test func otherHandshakeErrorsAreRetried() {
        var machine = commandMachine(securedURL)
        _ = machine.start(now: .zero)
        _ = machine.connected(now: ms(1))
        #expect(machine.received(wire("-ERR max number of clients reached\r\n"), now: ms(2))
            == [.close, .connectAttemptFailed(.handshakeFailed, reconnectAt: ms(102)), .armTimer(at: ms(102))])
        #expect(machine.timerFired(now: ms(102)) == [.connect(host: "redis.test", port: 6380), .armTimer(at: ms(1102))])
    }

    @Test func connectTimeoutCoversTheHandshake() {
        var machine = commandMachine(securedURL)
        _ = machine.start(now: .zero)
        _ = machine.connected(now: ms(900))
        #expect(machine.timerFired(now: ms(999)) == [.armTimer(at: .seconds(1))])
        #expect(machine.timerFired(now: .seconds(1))
            == [.close, .connectAttemptFailed(.connectTimeout, reconnectAt: ms(1100)), .armTimer(at: ms(1100))])
    }
}
