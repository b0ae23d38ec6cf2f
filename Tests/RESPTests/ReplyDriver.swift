import PureTestSupport
import RESP
import Testing

/// How a fixture's bytes reach the parser.
enum Feeding: Sendable, CustomTestStringConvertible {
    case whole
    case byteByByte
    case split(at: Int)
    /// Pieces of 1 to 64 bytes, cut where a generator seeded with `seed` says: for inputs too
    /// long to split at every offset.
    case randomChunks(seed: UInt64)

    func pieces(of bytes: [UInt8]) -> [[UInt8]] {
        switch self {
        case .whole: [bytes]
        case .byteByByte: bytes.map { [$0] }
        case .split(let offset): [Array(bytes[..<offset]), Array(bytes[offset...])]
        case .randomChunks(let seed): Self.randomPieces(of: bytes, seed: seed)
        }
    }

    private static func randomPieces(of bytes: [UInt8], seed: UInt64) -> [[UInt8]] {
        var random = SeededRandom(seed: seed)
        var pieces: [[UInt8]] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + Int.random(in: 1...64, using: &random))
            pieces.append(Array(bytes[start..<end]))
            start = end
        }
        return pieces
    }

    /// Whole, byte by byte, and split in two at every offset.
    static func all(for bytes: [UInt8]) -> [Feeding] {
        [.whole, .byteByByte] + (0...bytes.count).map { .split(at: $0) }
    }

    var testDescription: String {
        switch self {
        case .whole: "whole"
        case .byteByByte: "byte by byte"
        case .split(let offset): "split at \(offset)"
        case .randomChunks(let seed): "random chunks, seed \(seed)"
        }
    }
}

/// Everything a stream parsed to.
struct ParseOutcome: Equatable, CustomStringConvertible {
    var replies: [RESPValue] = []
    var error: RESPParseError?
    /// Bytes left unconsumed after the last piece (none when an error stopped the stream).
    var leftover = 0
    var hasPartialReply = false

    var description: String {
        "replies \(replies), error \(error.map(\.description) ?? "none"), leftover \(leftover), partial \(hasPartialReply)"
    }
}

/// Acts as a connection: keeps the unconsumed bytes, appends each piece as it "arrives", and
/// parses until the parser asks for more, checking the feeding contract on every call.
func parseReplies(_ pieces: [[UInt8]], limits: RESPLimits = RESPLimits()) -> ParseOutcome {
    var parser = RESPReplyParser(limits: limits)
    var buffer: [UInt8] = []
    var outcome = ParseOutcome()
    for piece in pieces {
        buffer.append(contentsOf: piece)
        while true {
            let event: RESPReplyParser.Event
            let consumed: Int
            do throws(RESPParseError) {
                (event, consumed) = try parser.parse(buffer)
            } catch {
                outcome.error = error
                return outcome
            }
            #expect(consumed >= 0 && consumed <= buffer.count, "consumed \(consumed) of \(buffer.count)")
            buffer.removeFirst(consumed)
            guard case .reply(let reply) = event else { break }
            #expect(consumed > 0, "a reply consumed nothing")
            outcome.replies.append(reply)
        }
    }
    outcome.leftover = buffer.count
    outcome.hasPartialReply = parser.hasPartialReply
    return outcome
}

func parseReplies(_ bytes: [UInt8], _ feeding: Feeding = .whole, limits: RESPLimits = RESPLimits()) -> ParseOutcome {
    parseReplies(feeding.pieces(of: bytes), limits: limits)
}
