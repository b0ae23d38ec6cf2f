import RESP
import Testing

@Suite("Command encoding")
struct RESPCommandTests {
    @Test func getHasTheExactWireForm() {
        expectEncoding(RESPCommand("GET", "pd:v1:p1"), "*2\r\n$3\r\nGET\r\n$8\r\npd:v1:p1\r\n")
    }

    @Test func integerArgumentsAreDecimalText() {
        expectEncoding(
            RESPCommand("SET", "k", "v", "PX", 1500),
            "*5\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n$2\r\nPX\r\n$4\r\n1500\r\n")
        expectEncoding(
            RESPCommand("INCRBY", "k", .integer(-9_223_372_036_854_775_808), 0),
            "*4\r\n$6\r\nINCRBY\r\n$1\r\nk\r\n$20\r\n-9223372036854775808\r\n$1\r\n0\r\n")
    }

    @Test func bytesAreSentAsTheyAreWhateverTheyHold() {
        let binary: [UInt8] = [0x0D, 0x0A, 0x00, 0xFF, 0x24, 0x2A]
        var expected = wire("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$6\r\n")
        expected += binary + wire("\r\n")
        var buffer: [UInt8] = []
        RESPCommand("SET", "k", .bytes(binary)).encode(into: &buffer)
        #expect(buffer == expected)
    }

    @Test func emptyArgumentsAndUTF8Strings() {
        // "é" is two bytes in UTF-8: the length counts bytes, not characters.
        expectEncoding(RESPCommand("ECHO", "", "é"), "*3\r\n$4\r\nECHO\r\n$0\r\n\r\n$2\r\né\r\n")
    }

    @Test func commandsAppendSoTheyCanBePipelined() {
        var buffer = wire("+existing")
        RESPCommand("PING").encode(into: &buffer)
        RESPCommand(arguments: ["DEL", .bytes(bytes("a")), "b"]).encode(into: &buffer)
        #expect(buffer == wire("+existing*1\r\n$4\r\nPING\r\n*3\r\n$3\r\nDEL\r\n$1\r\na\r\n$1\r\nb\r\n"))
    }

    @Test(arguments: [
        RESPCommand("PING"),
        RESPCommand("SET", "key", .bytes([UInt8](repeating: 7, count: 1000)), "EX", 60),
        RESPCommand(arguments: Array(repeating: .integer(-12), count: 11)),
        RESPCommand(arguments: []),
    ])
    func encodedCountIsExact(_ command: RESPCommand) {
        var buffer: [UInt8] = []
        command.encode(into: &buffer)
        #expect(buffer.count == command.encodedCount)
    }

    /// What a client sends is itself RESP: an array of bulk strings, which the parser reads back.
    @Test func encodedCommandsParseAsArraysOfBulkStrings() throws {
        var buffer: [UInt8] = []
        RESPCommand("HSET", "h", .bytes([0, 13, 10]), 42).encode(into: &buffer)
        var parser = RESPReplyParser()
        let result = try parser.parse(buffer)
        #expect(result.consumed == buffer.count)
        #expect(result.event == .reply(.array([
            .bulkString(bytes("HSET")), .bulkString(bytes("h")), .bulkString([0, 13, 10]), .bulkString(bytes("42")),
        ])))
    }

    private func expectEncoding(
        _ command: RESPCommand, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        var buffer: [UInt8] = []
        command.encode(into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == expected, sourceLocation: sourceLocation)
        #expect(buffer == wire(expected), sourceLocation: sourceLocation)
    }
}
