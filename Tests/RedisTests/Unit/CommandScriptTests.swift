import RESP
import Redis
import Testing

@Suite("Command connection: NOSCRIPT")
struct CommandScriptTests {
    let script = RedisScript("return redis.call('GET', KEYS[1])")
    let noScript = "-NOSCRIPT No matching script. Please use EVAL.\r\n"

    private func evalsha() -> [UInt8] {
        encoded(RESPCommand("EVALSHA", .string(script.sha1), 1, "k", "arg"))
    }

    private func eval() -> [UInt8] {
        encoded(RESPCommand("EVAL", .string(script.body), 1, "k", "arg"))
    }

    @Test func scriptIsSentByItsDigest() {
        var machine = readyCommandMachine()
        let call = machine.submit(.script(script, keys: ["k"], arguments: ["arg"]), deadline: ms(500), now: .zero)
        #expect(call.actions == [.write(evalsha()), .armTimer(at: ms(500))])
        #expect(machine.received(wire(":1\r\n"), now: ms(1)) == [.succeed(call.id, .integer(1)), .cancelTimer])
    }

    @Test func noScriptIsAnsweredByOneEvalAtThePipelinesEnd() {
        var machine = readyCommandMachine()
        let call = machine.submit(.script(script, keys: ["k"], arguments: ["arg"]), deadline: ms(500), now: .zero)
        let get = machine.get("after", deadline: ms(500), now: ms(1))
        // The caller is not completed by NOSCRIPT: the body goes out once, behind GET.
        #expect(machine.received(wire(noScript), now: ms(2)) == [.write(eval())])
        #expect(machine.received(wire("$1\r\ng\r\n"), now: ms(3)) == [.succeed(get.id, .bulkString(wire("g")))])
        #expect(machine.received(wire("$1\r\nv\r\n"), now: ms(4)) == [.succeed(call.id, .bulkString(wire("v"))), .cancelTimer])
    }

    @Test func theReloadIsTriedOnceOnly() {
        var machine = readyCommandMachine()
        let call = machine.submit(.script(script, keys: ["k"], arguments: ["arg"]), deadline: ms(500), now: .zero)
        _ = machine.received(wire(noScript), now: ms(1))
        let failure = "-ERR Error compiling script\r\n"
        #expect(machine.received(wire(failure), now: ms(2))
            == [.succeed(call.id, .simpleError(wire("ERR Error compiling script"))), .cancelTimer])
    }

    @Test func reloadKeepsTheCallersDeadline() {
        var machine = readyCommandMachine()
        let call = machine.submit(.script(script, keys: ["k"], arguments: ["arg"]), deadline: ms(100), now: .zero)
        _ = machine.received(wire(noScript), now: ms(50))
        #expect(machine.timerFired(now: ms(100)) == [.fail(call.id, .timedOut), .armTimer(at: ms(2050))])
        #expect(machine.received(wire(":1\r\n"), now: ms(120)) == [.cancelTimer])
    }

    @Test func abandonedScriptIsNotReloaded() {
        var machine = readyCommandMachine()
        let call = machine.submit(.script(script, keys: ["k"], arguments: ["arg"]), deadline: ms(100), now: .zero)
        #expect(machine.timerFired(now: ms(100)) == [.fail(call.id, .timedOut), .armTimer(at: .seconds(2))])
        #expect(machine.received(wire(noScript), now: ms(150)) == [.cancelTimer])
    }

    @Test func noScriptForAPlainCommandIsJustItsReply() {
        var machine = readyCommandMachine()
        let get = machine.submit(.command(RESPCommand("EVALSHA", "ffff", 0)), deadline: ms(500), now: .zero)
        #expect(machine.received(wire(noScript), now: ms(1))
            == [.succeed(get.id, .simpleError(wire("NOSCRIPT No matching script. Please use EVAL."))), .cancelTimer])
    }
}

/// `ASKING` goes out in the same write as the request it belongs to, and its reply is dropped.
@Suite("Command connection: ASKING")
struct CommandAskingTests {
    @Test func askingAndItsRequestAreOneWriteAndOneAnswer() {
        var machine = readyCommandMachine()
        let get = RedisRequest.command(RESPCommand("GET", "k"))
        let call = machine.submit(.asking(get), deadline: ms(500), now: .zero)
        #expect(call.actions == [.write(encoded(RESPCommand("ASKING"), RESPCommand("GET", "k"))), .armTimer(at: ms(500))])
        #expect(machine.received(wire("+OK\r\n"), now: ms(1)) == [])
        #expect(machine.received(wire("$1\r\nv\r\n"), now: ms(2)) == [.succeed(call.id, .bulkString(wire("v"))), .cancelTimer])
    }

    @Test func aScriptReloadedAfterAskingIsAskedForAgain() {
        var machine = readyCommandMachine()
        let script = RedisScript("return 1")
        let call = machine.submit(.asking(.script(script, keys: ["k"], arguments: [])), deadline: ms(500), now: .zero)
        _ = machine.received(wire("+OK\r\n"), now: ms(1))
        let reload = encoded(RESPCommand("ASKING"), RESPCommand("EVAL", .string(script.body), 1, "k"))
        #expect(machine.received(wire("-NOSCRIPT No matching script.\r\n"), now: ms(2)) == [.write(reload)])
        #expect(machine.received(wire("+OK\r\n"), now: ms(3)) == [])
        #expect(machine.received(wire(":1\r\n"), now: ms(4)) == [.succeed(call.id, .integer(1)), .cancelTimer])
    }

    @Test func theRoutingKeyIsTheFirstKey() {
        #expect(RedisRequest.command(RESPCommand("SET", "k", "v")).routingKey == "k")
        #expect(RedisRequest.command(RESPCommand("PING")).routingKey == nil)
        #expect(RedisRequest.command(RESPCommand("CLUSTER", "SLOTS")).routingKey == nil)
        #expect(RedisRequest.script(RedisScript("return 1"), keys: ["a", "b"], arguments: ["x"]).routingKey == "a")
        #expect(RedisRequest.asking(.command(RESPCommand("DEL", "k"))).routingKey == "k")
    }
}
