import RESP
import Testing

/// Well-formed reply streams and the replies they must parse to.
struct ReplyFixture: Sendable, CustomTestStringConvertible {
    var name: String
    var raw: [UInt8]
    var expected: [RESPValue]

    init(_ name: String, _ raw: [UInt8], _ expected: [RESPValue]) {
        self.name = name
        self.raw = raw
        self.expected = expected
    }

    init(_ name: String, _ raw: String, _ expected: RESPValue...) {
        self.init(name, wire(raw), expected)
    }

    var testDescription: String { name }
}

let replyFixtures: [ReplyFixture] = resp2Fixtures + resp3Fixtures

let resp2Fixtures: [ReplyFixture] = [
    ReplyFixture("simple string", "+OK\r\n", .simpleString(bytes("OK"))),
    ReplyFixture("empty simple string", "+\r\n", .simpleString([])),
    ReplyFixture("simple string with spaces and symbols", "+a b:c$*\r\n", .simpleString(bytes("a b:c$*"))),
    ReplyFixture("simple error", "-ERR unknown command 'FOO'\r\n", .simpleError(bytes("ERR unknown command 'FOO'"))),
    ReplyFixture("integer", ":1000\r\n", .integer(1000)),
    ReplyFixture("zero", ":0\r\n", .integer(0)),
    ReplyFixture("negative integer", ":-42\r\n", .integer(-42)),
    ReplyFixture("integer with plus sign", ":+7\r\n", .integer(7)),
    ReplyFixture("largest integer", ":9223372036854775807\r\n", .integer(.max)),
    ReplyFixture("smallest integer", ":-9223372036854775808\r\n", .integer(.min)),
    ReplyFixture("bulk string", "$5\r\nhello\r\n", .bulkString(bytes("hello"))),
    ReplyFixture("empty bulk string", "$0\r\n\r\n", .bulkString([])),
    ReplyFixture("bulk string holding CRLF", "$8\r\nab\r\n\r\ncd\r\n", .bulkString(bytes("ab\r\n\r\ncd"))),
    ReplyFixture("binary bulk string", wire("$6\r\n") + [0, 0xFF, 0x0D, 0x80, 0x0A, 0x24] + wire("\r\n"),
                 [.bulkString([0, 0xFF, 0x0D, 0x80, 0x0A, 0x24])]),
    ReplyFixture("null bulk string", "$-1\r\n", .null),
    ReplyFixture("array of bulk strings", "*2\r\n$3\r\nfoo\r\n$3\r\nbar\r\n",
                 .array([.bulkString(bytes("foo")), .bulkString(bytes("bar"))])),
    ReplyFixture("empty array", "*0\r\n", .array([])),
    ReplyFixture("null array", "*-1\r\n", .null),
    ReplyFixture("mixed array with a null element", "*4\r\n:1\r\n+two\r\n$-1\r\n-ERR x\r\n",
                 .array([.integer(1), .simpleString(bytes("two")), .null, .simpleError(bytes("ERR x"))])),
    ReplyFixture("nested arrays", "*2\r\n*3\r\n:1\r\n:2\r\n:3\r\n*2\r\n+Hello\r\n-World\r\n",
                 .array([.array([.integer(1), .integer(2), .integer(3)]),
                         .array([.simpleString(bytes("Hello")), .simpleError(bytes("World"))])])),
    ReplyFixture("arrays nested four deep", "*1\r\n*2\r\n*1\r\n*0\r\n*-1\r\n",
                 .array([.array([.array([.array([])]), .null])])),
    ReplyFixture("array after nested array", "*3\r\n*1\r\n:1\r\n:2\r\n*1\r\n$1\r\nx\r\n",
                 .array([.array([.integer(1)]), .integer(2), .array([.bulkString(bytes("x"))])])),
    ReplyFixture("pipelined replies", "+OK\r\n:1\r\n$-1\r\n*1\r\n$2\r\nhi\r\n-NOSCRIPT No matching script.\r\n",
                 .simpleString(bytes("OK")), .integer(1), .null, .array([.bulkString(bytes("hi"))]),
                 .simpleError(bytes("NOSCRIPT No matching script."))),
]

let resp3Fixtures: [ReplyFixture] = [
    ReplyFixture("null", "_\r\n", .null),
    ReplyFixture("true", "#t\r\n", .boolean(true)),
    ReplyFixture("false", "#f\r\n", .boolean(false)),
    ReplyFixture("double", ",1.23\r\n", .double(1.23)),
    ReplyFixture("integral double", ",10\r\n", .double(10)),
    ReplyFixture("double with exponent", ",-5.5e-3\r\n", .double(-0.0055)),
    ReplyFixture("double with signed capital exponent", ",+1E+20\r\n", .double(1e20)),
    ReplyFixture("infinity", ",inf\r\n", .double(.infinity)),
    ReplyFixture("negative infinity", ",-inf\r\n", .double(-.infinity)),
    ReplyFixture("big number", "(3492890328409238509324850943850943825024385\r\n",
                 .bigNumber("3492890328409238509324850943850943825024385")),
    ReplyFixture("negative big number", "(-12\r\n", .bigNumber("-12")),
    ReplyFixture("bulk error", "!21\r\nSYNTAX invalid syntax\r\n", .bulkError(bytes("SYNTAX invalid syntax"))),
    ReplyFixture("bulk error holding CRLF", "!5\r\nE\r\nx!\r\n", .bulkError(bytes("E\r\nx!"))),
    ReplyFixture("verbatim string", "=15\r\ntxt:Some string\r\n", .verbatimString(format: "txt", text: bytes("Some string"))),
    ReplyFixture("empty verbatim string", "=4\r\nmkd:\r\n", .verbatimString(format: "mkd", text: [])),
    ReplyFixture("map", "%2\r\n+first\r\n:1\r\n+second\r\n:2\r\n",
                 .map([RESPMapEntry(key: .simpleString(bytes("first")), value: .integer(1)),
                       RESPMapEntry(key: .simpleString(bytes("second")), value: .integer(2))])),
    ReplyFixture("empty map", "%0\r\n", .map([])),
    ReplyFixture("map with aggregate keys and values", "%2\r\n*1\r\n:1\r\n%1\r\n#t\r\n_\r\n~0\r\n>1\r\n,2.5\r\n",
                 .map([RESPMapEntry(key: .array([.integer(1)]),
                                    value: .map([RESPMapEntry(key: .boolean(true), value: .null)])),
                       RESPMapEntry(key: .set([]), value: .push([.double(2.5)]))])),
    ReplyFixture("set", "~3\r\n+orange\r\n+apple\r\n#t\r\n",
                 .set([.simpleString(bytes("orange")), .simpleString(bytes("apple")), .boolean(true)])),
    ReplyFixture("empty set", "~0\r\n", .set([])),
    ReplyFixture("push message", ">3\r\n$7\r\nmessage\r\n$4\r\nchan\r\n$5\r\nhello\r\n",
                 .push([.bulkString(bytes("message")), .bulkString(bytes("chan")), .bulkString(bytes("hello"))])),
    ReplyFixture("push between replies", ":1\r\n>2\r\n+pong\r\n$0\r\n\r\n:2\r\n",
                 .integer(1), .push([.simpleString(bytes("pong")), .bulkString([])]), .integer(2)),
    ReplyFixture("attribute before a reply is skipped",
                 "|1\r\n+key-popularity\r\n%2\r\n$1\r\na\r\n,0.1923\r\n$1\r\nb\r\n,0.0012\r\n*2\r\n:2039123\r\n:9543892\r\n",
                 .array([.integer(2039123), .integer(9543892)])),
    ReplyFixture("attribute inside an array is not an element", "*2\r\n:1\r\n|1\r\n+ttl\r\n:3600\r\n:2\r\n",
                 .array([.integer(1), .integer(2)])),
    ReplyFixture("empty attribute", "|0\r\n+OK\r\n", .simpleString(bytes("OK"))),
    ReplyFixture("HELLO-like map", "%3\r\n$6\r\nserver\r\n$5\r\nredis\r\n$5\r\nproto\r\n:3\r\n$7\r\nmodules\r\n*0\r\n",
                 .map([RESPMapEntry(key: .bulkString(bytes("server")), value: .bulkString(bytes("redis"))),
                       RESPMapEntry(key: .bulkString(bytes("proto")), value: .integer(3)),
                       RESPMapEntry(key: .bulkString(bytes("modules")), value: .array([]))])),
]
