/// Why a byte stream is not a valid sequence of Redis replies.
///
/// Any of them means the stream can no longer be split into replies, so the connection must be
/// closed. Equality compares the kind only, so callers and tests match on the static values.
public struct RESPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable, Equatable {
        case unknownType, invalidLineEnding, missingCRLF
        case invalidLength, negativeLength
        case invalidInteger, integerOverflow
        case invalidNull, invalidBoolean, invalidDouble, invalidBigNumber, invalidVerbatimString
        case lineTooLong, bulkTooLong, aggregateTooLarge, nestingTooDeep, replyTooLarge
    }

    private let code: Code
    /// Human text for logs.
    public let detail: String

    private init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "RESP: \(detail)" }

    public static func == (lhs: RESPParseError, rhs: RESPParseError) -> Bool {
        lhs.code == rhs.code
    }

    // MARK: Framing

    public static let unknownType = RESPParseError(
        .unknownType, "A reply begins with a byte that is not a RESP type.")
    public static let invalidLineEnding = RESPParseError(
        .invalidLineEnding, "A line holds a CR not followed by LF, or a bare LF.")
    public static let missingCRLF = RESPParseError(
        .missingCRLF, "A bulk payload is not followed by CRLF.")
    public static let invalidLength = RESPParseError(
        .invalidLength, "A length or count is not a decimal number.")
    public static let negativeLength = RESPParseError(
        .negativeLength, "A length or count is negative (-1, a null, is allowed for bulk strings and arrays only).")

    // MARK: Values

    public static let invalidInteger = RESPParseError(
        .invalidInteger, "An integer reply is not an optional sign followed by decimal digits.")
    public static let integerOverflow = RESPParseError(
        .integerOverflow, "An integer reply does not fit in 64 bits.")
    public static let invalidNull = RESPParseError(
        .invalidNull, "A null reply has content before its CRLF.")
    public static let invalidBoolean = RESPParseError(
        .invalidBoolean, "A boolean reply is neither 't' nor 'f'.")
    public static let invalidDouble = RESPParseError(
        .invalidDouble, "A double reply is not a decimal number, 'inf', '-inf' or 'nan'.")
    public static let invalidBigNumber = RESPParseError(
        .invalidBigNumber, "A big number reply is not an optional sign followed by decimal digits.")
    public static let invalidVerbatimString = RESPParseError(
        .invalidVerbatimString, "A verbatim string does not begin with a three-byte format and a colon.")

    // MARK: Limits

    public static let lineTooLong = RESPParseError(
        .lineTooLong, "A line exceeds the configured length limit.")
    public static let bulkTooLong = RESPParseError(
        .bulkTooLong, "A bulk length exceeds the configured limit.")
    public static let aggregateTooLarge = RESPParseError(
        .aggregateTooLarge, "An aggregate's element count exceeds the configured limit.")
    public static let nestingTooDeep = RESPParseError(
        .nestingTooDeep, "Aggregates are nested deeper than the configured limit.")
    public static let replyTooLarge = RESPParseError(
        .replyTooLarge, "One reply's total size exceeds the configured limit.")
}
