/// Why a byte stream is not a valid sequence of Redis replies.
///
/// Any of them means the stream can no longer be split into replies, so the connection must be
/// closed. Equality compares the kind only, so callers and tests match on the static values.
package struct RESPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable, Equatable {
        case unknownType, invalidLineEnding, missingCRLF
        case invalidLength, negativeLength
        case invalidInteger, integerOverflow
        case invalidNull, invalidBoolean, invalidDouble, invalidBigNumber, invalidVerbatimString
        case lineTooLong, bulkTooLong, aggregateTooLarge, nestingTooDeep, replyTooLarge
    }

    private let code: Code
    /// Human text for logs.
    package let detail: String

    private init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    package var description: String { "RESP: \(detail)" }

    package static func == (lhs: RESPParseError, rhs: RESPParseError) -> Bool {
        lhs.code == rhs.code
    }

    // MARK: Framing

    package static let unknownType = RESPParseError(
        .unknownType, "A reply begins with a byte that is not a RESP type.")
    package static let invalidLineEnding = RESPParseError(
        .invalidLineEnding, "A line holds a CR not followed by LF, or a bare LF.")
    package static let missingCRLF = RESPParseError(
        .missingCRLF, "A bulk payload is not followed by CRLF.")
    package static let invalidLength = RESPParseError(
        .invalidLength, "A length or count is not a decimal number.")
    package static let negativeLength = RESPParseError(
        .negativeLength, "A length or count is negative (-1, a null, is allowed for bulk strings and arrays only).")

    // MARK: Values

    package static let invalidInteger = RESPParseError(
        .invalidInteger, "An integer reply is not an optional sign followed by decimal digits.")
    package static let integerOverflow = RESPParseError(
        .integerOverflow, "An integer reply does not fit in 64 bits.")
    package static let invalidNull = RESPParseError(
        .invalidNull, "A null reply has content before its CRLF.")
    package static let invalidBoolean = RESPParseError(
        .invalidBoolean, "A boolean reply is neither 't' nor 'f'.")
    package static let invalidDouble = RESPParseError(
        .invalidDouble, "A double reply is not a decimal number, 'inf', '-inf' or 'nan'.")
    package static let invalidBigNumber = RESPParseError(
        .invalidBigNumber, "A big number reply is not an optional sign followed by decimal digits.")
    package static let invalidVerbatimString = RESPParseError(
        .invalidVerbatimString, "A verbatim string does not begin with a three-byte format and a colon.")

    // MARK: Limits

    package static let lineTooLong = RESPParseError(
        .lineTooLong, "A line exceeds the configured length limit.")
    package static let bulkTooLong = RESPParseError(
        .bulkTooLong, "A bulk length exceeds the configured limit.")
    package static let aggregateTooLarge = RESPParseError(
        .aggregateTooLarge, "An aggregate's element count exceeds the configured limit.")
    package static let nestingTooDeep = RESPParseError(
        .nestingTooDeep, "Aggregates are nested deeper than the configured limit.")
    package static let replyTooLarge = RESPParseError(
        .replyTooLarge, "One reply's total size exceeds the configured limit.")
}
