import RESP
import Testing

/// A stream that must fail, with the replies that precede the fault.
struct MalformedReply: Sendable, CustomTestStringConvertible {
    var name: String
    var raw: [UInt8]
    var error: RESPParseError
    var repliesBefore: [RESPValue]

    init(_ name: String, _ raw: String, _ error: RESPParseError, after repliesBefore: [RESPValue] = []) {
        self.name = name
        self.raw = wire(raw)
        self.error = error
        self.repliesBefore = repliesBefore
    }

    var testDescription: String { name }
}

let malformedReplies: [MalformedReply] = [
    MalformedReply("unknown type byte", "?x\r\n", .unknownType),
    MalformedReply("inline text instead of a reply", "hello\r\n", .unknownType),
    MalformedReply("empty line", "\r\n", .unknownType),
    MalformedReply("unknown type inside an array", "*2\r\n:1\r\n@\r\n", .unknownType),
    MalformedReply("unknown type after a reply", "+OK\r\nX", .unknownType, after: [.simpleString(bytes("OK"))]),
    MalformedReply("CR without LF", "+OK\rX\r\n", .invalidLineEnding),
    MalformedReply("bare LF", "+OK\n", .invalidLineEnding),
    MalformedReply("bare LF after an integer", ":1\n:2\r\n", .invalidLineEnding),
    MalformedReply("bulk payload longer than declared", "$3\r\nfooX\r\n", .missingCRLF),
    MalformedReply("bulk payload ended by LF CR", "$3\r\nfoo\n\r", .missingCRLF),
    MalformedReply("bulk error without CRLF", "!1\r\nE\nX", .missingCRLF),
    MalformedReply("empty length", "$\r\n", .invalidLength),
    MalformedReply("letters in a length", "$abc\r\n", .invalidLength),
    MalformedReply("count with a trailing letter", "*1x\r\n", .invalidLength),
    MalformedReply("length with a plus sign", "$+5\r\n", .invalidLength),
    MalformedReply("length with a space", "$ 3\r\n", .invalidLength),
    MalformedReply("lone minus as a length", "*-\r\n", .invalidLength),
    MalformedReply("bulk length of -2", "$-2\r\n", .negativeLength),
    MalformedReply("array count of -5", "*-5\r\n", .negativeLength),
    MalformedReply("length of -0", "$-0\r\n", .negativeLength),
    MalformedReply("null map", "%-1\r\n", .negativeLength),
    MalformedReply("null set", "~-1\r\n", .negativeLength),
    MalformedReply("null push", ">-1\r\n", .negativeLength),
    MalformedReply("null attribute", "|-1\r\n", .negativeLength),
    MalformedReply("null bulk error", "!-1\r\n", .negativeLength),
    MalformedReply("null verbatim string", "=-1\r\n", .negativeLength),
    MalformedReply("empty integer", ":\r\n", .invalidInteger),
    MalformedReply("sign without digits", ":-\r\n", .invalidInteger),
    MalformedReply("letter in an integer", ":12a\r\n", .invalidInteger),
    MalformedReply("space before an integer", ": 1\r\n", .invalidInteger),
    MalformedReply("fraction in an integer", ":1.5\r\n", .invalidInteger),
    MalformedReply("integer one above Int64.max", ":9223372036854775808\r\n", .integerOverflow),
    MalformedReply("integer one below Int64.min", ":-9223372036854775809\r\n", .integerOverflow),
    MalformedReply("integer of 30 digits", ":999999999999999999999999999999\r\n", .integerOverflow),
    MalformedReply("null with content", "_x\r\n", .invalidNull),
    MalformedReply("boolean other than t or f", "#x\r\n", .invalidBoolean),
    MalformedReply("empty boolean", "#\r\n", .invalidBoolean),
    MalformedReply("capital boolean", "#T\r\n", .invalidBoolean),
    MalformedReply("empty double", ",\r\n", .invalidDouble),
    MalformedReply("double ending in a dot", ",1.\r\n", .invalidDouble),
    MalformedReply("double starting with a dot", ",.5\r\n", .invalidDouble),
    MalformedReply("double with an empty exponent", ",1e\r\n", .invalidDouble),
    MalformedReply("hexadecimal double", ",0x10\r\n", .invalidDouble),
    MalformedReply("double spelled infinity", ",infinity\r\n", .invalidDouble),
    MalformedReply("capitalised NaN", ",NaN\r\n", .invalidDouble),
    MalformedReply("empty big number", "(\r\n", .invalidBigNumber),
    MalformedReply("big number with a letter", "(12x\r\n", .invalidBigNumber),
    MalformedReply("big number with a fraction", "(1.5\r\n", .invalidBigNumber),
    MalformedReply("verbatim string too short for its format", "=3\r\ntxt\r\n", .invalidVerbatimString),
    MalformedReply("verbatim string without a colon", "=5\r\ntxt-x\r\n", .invalidVerbatimString),
]

@Suite("Malformed replies")
struct MalformedReplyTests {
    @Test(arguments: malformedReplies)
    func failsTheSameWayWhateverTheFeeding(_ malformed: MalformedReply) {
        for feeding in Feeding.all(for: malformed.raw) {
            let outcome = parseReplies(malformed.raw, feeding)
            #expect(outcome == ParseOutcome(replies: malformed.repliesBefore, error: malformed.error),
                    "\(feeding.testDescription)")
        }
    }

    @Test func errorsCompareByKindAndDescribeThemselves() {
        #expect(RESPParseError.bulkTooLong == .bulkTooLong)
        #expect(RESPParseError.bulkTooLong != .lineTooLong)
        #expect(RESPParseError.missingCRLF.description == "RESP: A bulk payload is not followed by CRLF.")
    }
}
