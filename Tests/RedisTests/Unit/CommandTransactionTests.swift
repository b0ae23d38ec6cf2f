import RESP
import Redis
import Testing

/// A transaction goes out in one write (`MULTI`, its commands, `EXEC`); the caller gets `EXEC`'s
/// reply, or the error a command was refused with as it was queued.
@Suite("Command connection: MULTI/EXEC")
struct CommandTransactionTests {
    let transaction = RedisRequest.transaction([RESPCommand("MGET", "{p}:a", "{p}:b"), RESPCommand("PTTL", "{p}:b")])

    @Test func theTransactionIsOneWriteAndOneAnswer() {
        var machine = readyCommandMachine()
        let call = machine.submit(transaction, deadline: ms(500), now: .zero)
        let bytes = encoded(RESPCommand("MULTI"), RESPCommand("MGET", "{p}:a", "{p}:b"), RESPCommand("PTTL", "{p}:b"), RESPCommand("EXEC"))
        #expect(call.actions == [.write(bytes), .armTimer(at: ms(500))])
        #expect(machine.received(wire("+OK\r\n+QUEUED\r\n"), now: ms(1)) == [])
        #expect(machine.received(wire("+QUEUED\r\n"), now: ms(1)) == [])
        let exec = "*2\r\n*2\r\n$1\r\ng\r\n$-1\r\n:-2\r\n"
        let answer: RESPValue = .array([.array([.bulkString(wire("g")), .null]), .integer(-2)])
        #expect(machine.received(wire(exec), now: ms(2)) == [.succeed(call.id, answer), .cancelTimer])
    }

    /// A Redis Cluster node refuses a command for a slot it does not serve as the command is
    /// queued, then aborts the transaction: the caller sees the redirect, not `EXECABORT`.
    @Test func aCommandRefusedAsItWasQueuedIsTheAnswer() {
        var machine = readyCommandMachine()
        let call = machine.submit(transaction, deadline: ms(500), now: .zero)
        let moved = "-MOVED 1234 127.0.0.1:7001\r\n"
        let replies = "+OK\r\n" + moved + "-MOVED 1234 127.0.0.1:7001\r\n"
            + "-EXECABORT Transaction discarded because of previous errors.\r\n"
        #expect(machine.received(wire(replies), now: ms(1)) == [.succeed(call.id, .simpleError(wire("MOVED 1234 127.0.0.1:7001"))), .cancelTimer])
    }

    /// The commands after it keep their own replies.
    @Test func repliesAfterTheTransactionStayWithTheirCallers() {
        var machine = readyCommandMachine()
        let first = machine.submit(transaction, deadline: ms(500), now: .zero)
        let second = machine.submit(.command(RESPCommand("GET", "k")), deadline: ms(500), now: .zero)
        let replies = "+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n*0\r\n:1\r\n$1\r\nv\r\n"
        let actions = machine.received(wire(replies), now: ms(1))
        #expect(actions.contains(.succeed(first.id, .array([.array([]), .integer(1)]))))
        #expect(actions.contains(.succeed(second.id, .bulkString(wire("v")))))
    }

    @Test func aTransactionIsRoutedByItsFirstKey() {
        #expect(transaction.routingKey == "{p}:a")
        #expect(RedisRequest.transaction([RESPCommand("PING"), RESPCommand("GET", "k")]).routingKey == "k")
        #expect(RedisRequest.asking(transaction).routingKey == "{p}:a")
    }
}
