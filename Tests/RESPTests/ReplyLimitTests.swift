import RESP
import Testing

/// Each bound passes exactly at its value and fails one beyond, whatever the feeding.
@Suite("Reply limits")
struct ReplyLimitTests {
    @Test func defaultsAreTheDocumentedOnes() {
        let limits = RESPLimits()
        #expect(limits.maxBulkLength == 16 * 1024 * 1024)
        #expect(limits.maxBulkLength < 512 * 1024 * 1024, "Redis's own maximum")
        #expect(limits.maxAggregateCount == 1_048_576)
        #expect(limits.maxDepth == 32)
        #expect(limits.maxLineLength == 65_536)
        #expect(limits.maxReplyBytes == 32 * 1024 * 1024)
        #expect(limits.maxReplyBytes >= 2 * limits.maxBulkLength, "a page of the largest bulk fits with room")
    }

    /// Nested counts multiply: a header of a million elements, each a small array, is within
    /// every per-header bound however far it goes, and only the total stops it.
    @Test func manySmallNestedElementsExceedTheReplyLimit() {
        let limits = RESPLimits(maxReplyBytes: 64 << 10)
        let raw = wire("*1048576\r\n" + String(repeating: "*1\r\n_\r\n", count: 1000))
        let feedings = [Feeding.whole] + (1...20).map { Feeding.randomChunks(seed: $0) }
        for feeding in feedings {
            let outcome = parseReplies(raw, feeding, limits: limits)
            #expect(outcome.error == .replyTooLarge, "\(feeding.testDescription): \(outcome)")
        }
    }

    /// A reply's size is its wire bytes plus `bytesPerValue` for each value: here a header, then
    /// `count` arrays of one null each.
    @Test(arguments: [1, 100])
    func aReplyOfNestedElementsAtTheLimit(_ count: Int) {
        let raw = wire("*\(count)\r\n" + String(repeating: "*1\r\n_\r\n", count: count))
        let size = raw.count + (1 + 2 * count) * RESPLimits.bytesPerValue
        expectParses(raw, limits: RESPLimits(maxReplyBytes: size))
        expectFails(raw, .replyTooLarge, limits: RESPLimits(maxReplyBytes: size - 1))
    }

    @Test(arguments: ["$", "!", "="])
    func aBulkPayloadCountsTowardsTheReply(_ type: String) {
        let raw = wire("*2\r\n\(type)10\r\ntxt:567890\r\n:1\r\n")
        let size = raw.count + 3 * RESPLimits.bytesPerValue
        expectParses(raw, limits: RESPLimits(maxReplyBytes: size))
        expectFails(raw, .replyTooLarge, limits: RESPLimits(maxReplyBytes: size - 1))
    }

    /// The payload is counted at its header, so a reply that cannot fit fails before the caller
    /// buffers a payload for it.
    @Test func aPayloadThatCannotFitFailsAtItsHeader() {
        var parser = RESPReplyParser(limits: RESPLimits(maxReplyBytes: 1000))
        #expect(throws: RESPParseError.replyTooLarge) { try parser.parse(wire("*1\r\n$1000\r\n")) }
    }

    /// The count starts again at each reply; an attribute belongs to the reply it annotates.
    @Test func eachReplyIsCountedOnItsOwn() {
        let reply = "*2\r\n:1\r\n:2\r\n"
        let size = reply.utf8.count + 3 * RESPLimits.bytesPerValue
        let limits = RESPLimits(maxReplyBytes: size)
        expectParses(wire(reply + reply + reply), limits: limits)
        expectFails(wire("|0\r\n" + reply), .replyTooLarge, limits: limits)
    }

    /// A new connection's first reply does not inherit the size of the old one's partial reply.
    @Test func resetForgetsThePartialReplysSize() throws {
        let reply = wire("*2\r\n:1\r\n:2\r\n")
        var parser = RESPReplyParser(limits: RESPLimits(maxReplyBytes: reply.count + 3 * RESPLimits.bytesPerValue))
        #expect(try parser.parse(wire("*2\r\n:1\r\n")).event == .needMoreData)
        parser.reset()
        #expect(try parser.parse(reply).event == .reply(.array([.integer(1), .integer(2)])))
    }

    @Test(arguments: ["$", "!", "="])
    func bulkLength(_ type: String) {
        let limits = RESPLimits(maxBulkLength: 10)
        let payload = "txt:567890"
        expectParses(wire("\(type)10\r\n\(payload)\r\n"), limits: limits)
        expectFails(wire("\(type)11\r\n"), .bulkTooLong, limits: limits)
    }

    @Test func bulkLengthBeyondIntIsTooLongRatherThanAnOverflow() {
        expectFails(wire("$99999999999999999999999\r\n"), .bulkTooLong)
    }

    @Test(arguments: ["*", "~", ">"])
    func elementCount(_ type: String) {
        let limits = RESPLimits(maxAggregateCount: 3)
        expectParses(wire("\(type)3\r\n:1\r\n:2\r\n:3\r\n"), limits: limits)
        expectFails(wire("\(type)4\r\n"), .aggregateTooLarge, limits: limits)
    }

    @Test(arguments: ["%", "|"])
    func entryCount(_ type: String) {
        let limits = RESPLimits(maxAggregateCount: 2)
        expectParses(wire("\(type)2\r\n:1\r\n:2\r\n:3\r\n:4\r\n+after\r\n"), limits: limits)
        expectFails(wire("\(type)3\r\n"), .aggregateTooLarge, limits: limits)
    }

    @Test func depthOfTheDefaultLimit() {
        let atLimit = String(repeating: "*1\r\n", count: 32) + ":1\r\n"
        expectParses(wire(atLimit))
        let beyond = String(repeating: "*1\r\n", count: 33) + ":1\r\n"
        expectFails(wire(beyond), .nestingTooDeep)
    }

    @Test func anEmptyAggregateCountsAsALevel() {
        let limits = RESPLimits(maxDepth: 3)
        expectParses(wire("*1\r\n%1\r\n+k\r\n~0\r\n"), limits: limits)
        expectFails(wire("*1\r\n%1\r\n+k\r\n~1\r\n*0\r\n"), .nestingTooDeep, limits: limits)
    }

    @Test func anAttributeCountsAsALevel() {
        let limits = RESPLimits(maxDepth: 2)
        expectParses(wire("*1\r\n|1\r\n+k\r\n+v\r\n:1\r\n"), limits: limits)
        expectFails(wire("*1\r\n|1\r\n+k\r\n*1\r\n:1\r\n"), .nestingTooDeep, limits: limits)
    }

    @Test(arguments: ["+abcde", "-ERROR", ":12345", "(99999", ",1.125", "$00001\r\nx", "*00001\r\n:1"])
    func lineLength(_ atLimit: String) {
        let limits = RESPLimits(maxLineLength: 5)
        expectParses(wire(atLimit + "\r\n"), limits: limits)
        let type = atLimit.prefix(1)
        expectFails(wire(type + "123456"), .lineTooLong, limits: limits)
    }

    /// A line over the limit fails as soon as its extra byte arrives, not when its CRLF does.
    @Test func anOverlongLineFailsBeforeItsEnd() {
        var parser = RESPReplyParser(limits: RESPLimits(maxLineLength: 4))
        #expect(throws: RESPParseError.lineTooLong) { try parser.parse(wire("+abcde")) }
    }

    private func expectParses(
        _ raw: [UInt8], limits: RESPLimits = RESPLimits(), sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for feeding in Feeding.all(for: raw) {
            let outcome = parseReplies(raw, feeding, limits: limits)
            #expect(outcome.error == nil && outcome.leftover == 0 && !outcome.hasPartialReply && !outcome.replies.isEmpty,
                    "\(feeding.testDescription): \(outcome)", sourceLocation: sourceLocation)
        }
    }

    private func expectFails(
        _ raw: [UInt8], _ error: RESPParseError, limits: RESPLimits = RESPLimits(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for feeding in Feeding.all(for: raw) {
            let outcome = parseReplies(raw, feeding, limits: limits)
            #expect(outcome.error == error, "\(feeding.testDescription): \(outcome)", sourceLocation: sourceLocation)
        }
    }
}
