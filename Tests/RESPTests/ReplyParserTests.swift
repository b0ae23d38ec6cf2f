@testable import RESP
import Testing

@Suite("Reply parser")
struct ReplyParserTests {
    @Test(arguments: replyFixtures)
    func wholeInput(_ fixture: ReplyFixture) {
        check(fixture, .whole)
    }

    @Test(arguments: replyFixtures)
    func oneByteAtATime(_ fixture: ReplyFixture) {
        check(fixture, .byteByByte)
    }

    @Test(arguments: replyFixtures)
    func splitAtEveryOffset(_ fixture: ReplyFixture) {
        for offset in 0...fixture.raw.count {
            check(fixture, .split(at: offset))
        }
    }

    @Test(arguments: [Feeding.whole, .byteByByte])
    func everyFixturePipelinedInOneStream(_ feeding: Feeding) {
        let stream = replyFixtures.flatMap(\.raw)
        let outcome = parseReplies(stream, feeding)
        #expect(outcome == ParseOutcome(replies: replyFixtures.flatMap(\.expected)))
    }

    @Test func nanIsParsedWhateverTheFeeding() throws {
        let raw = wire(",nan\r\n:1\r\n")
        for feeding in Feeding.all(for: raw) {
            let outcome = parseReplies(raw, feeding)
            #expect(outcome.replies.count == 2, "\(feeding.testDescription)")
            #expect(outcome.replies.first?.double?.isNaN == true, "\(feeding.testDescription)")
            #expect(outcome.replies.last == .integer(1), "\(feeding.testDescription)")
        }
    }

    @Test func aPartialReplyIsHeldAndItsParsedElementsConsumed() throws {
        var parser = RESPReplyParser()
        let first = try parser.parse(wire("*3\r\n:1\r\n$5\r\nhel"))
        // The array header, the first element, the bulk header and the payload so far: the
        // payload is gathered into the value's array, not left with the caller.
        #expect(first.event == .needMoreData)
        #expect(first.consumed == 15)
        #expect(parser.hasPartialReply)
        let second = try parser.parse(wire("lo\r\n:3"))
        #expect(second.event == .needMoreData)
        #expect(second.consumed == 4)
        let third = try parser.parse(wire(":3\r\n+next\r\n"))
        #expect(third.event == .reply(.array([.integer(1), .bulkString(bytes("hello")), .integer(3)])))
        #expect(third.consumed == 4)
        #expect(!parser.hasPartialReply)
    }

    @Test func anIncompleteLineIsNotConsumed() throws {
        var parser = RESPReplyParser()
        let result = try parser.parse(wire("+PON"))
        #expect(result.event == .needMoreData)
        #expect(result.consumed == 0)
        #expect(!parser.hasPartialReply)
    }

    /// What arrived of a large bulk is taken; its declared length is not reserved before its
    /// bytes come.
    @Test func aLargeDeclaredBulkIsGatheredAsItArrives() throws {
        var parser = RESPReplyParser()
        let header = wire("$16777216\r\n")
        let result = try parser.parse(header + [UInt8](repeating: 0x61, count: 100))
        #expect(result.event == .needMoreData)
        #expect(result.consumed == header.count + 100)
        #expect(parser.hasPartialReply)
        var bulk = PendingBulk(kind: .string, length: 16_777_216)
        [UInt8](repeating: 0x61, count: 100).withUnsafeBytes { bulk.gather($0) }
        #expect(bulk.gathered.capacity <= PendingBulk.firstReservation * 2)
        #expect(bulk.missing == 16_777_116)
    }

    /// A payload split over reads ends with its CRLF, which may come apart from it.
    @Test func aGatheredPayloadEndsAtItsCRLF() throws {
        var parser = RESPReplyParser()
        #expect(try parser.parse(wire("$5\r\nhe")) == (.needMoreData, 6))
        #expect(try parser.parse(wire("llo\r")) == (.needMoreData, 3))
        #expect(try parser.parse(wire("\r\n+OK\r\n")) == (.reply(.bulkString(bytes("hello"))), 2))
        #expect(!parser.hasPartialReply)
        var broken = RESPReplyParser()
        _ = try broken.parse(wire("$5\r\nhel"))
        #expect(throws: RESPParseError.missingCRLF) { try broken.parse(wire("lo\n\n")) }
    }

    /// An attribute is consumed before the value it annotates: the reply has begun.
    @Test func aSkippedAttributeLeavesAPartialReply() throws {
        var parser = RESPReplyParser()
        let first = try parser.parse(wire("|1\r\n+a\r\n+b\r\n"))
        #expect(first == (.needMoreData, 12))
        #expect(parser.hasPartialReply)
        #expect(try parser.parse(wire("#t\r\n")).event == .reply(.boolean(true)))
        #expect(!parser.hasPartialReply)
    }

    @Test func parsingFromAnOffsetCountsConsumedFromThere() throws {
        var parser = RESPReplyParser()
        let buffer = wire("+OK\r\n:12\r\n")
        let result = try parser.parse(buffer, from: 5)
        #expect(result.event == .reply(.integer(12)))
        #expect(result.consumed == 5)
    }

    @Test func anErrorIsRepeatedUntilReset() throws {
        var parser = RESPReplyParser()
        #expect(throws: RESPParseError.unknownType) { try parser.parse(wire("?\r\n")) }
        #expect(throws: RESPParseError.unknownType) { try parser.parse(wire("+OK\r\n")) }
        parser.reset()
        #expect(try parser.parse(wire("+OK\r\n")).event == .reply(.simpleString(bytes("OK"))))
    }

    @Test func resetDiscardsAPartialReply() throws {
        var parser = RESPReplyParser()
        _ = try parser.parse(wire("*2\r\n:1\r\n"))
        #expect(parser.hasPartialReply)
        parser.reset()
        #expect(!parser.hasPartialReply)
        #expect(try parser.parse(wire(":5\r\n")).event == .reply(.integer(5)))
    }

    private func check(_ fixture: ReplyFixture, _ feeding: Feeding) {
        let outcome = parseReplies(fixture.raw, feeding)
        #expect(outcome == ParseOutcome(replies: fixture.expected), "\(feeding.testDescription)")
    }
}
