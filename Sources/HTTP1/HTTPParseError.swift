/// Why a message was rejected, carrying the status the server must answer and a
/// human-readable detail for a problem+json body. Equality compares the kind of
/// error only, so tests and callers can match on the static values.
///
/// For the response parser (client side) the status is informational: a client
/// should map any thrown error to 502 Bad Gateway towards its own caller.
public struct HTTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable, Equatable {
        case requestLineTooLong, headerSectionTooLarge, tooManyHeaders, bodyTooLarge
        case unsupportedTransferCoding, unsupportedVersion
        case malformedRequestLine, invalidMethod, invalidTarget, invalidVersion
        case invalidHeaderName, missingHeaderColon, invalidHeaderValue, whitespaceBeforeColon
        case obsoleteLineFolding, bareCR, bareLineFeed
        case missingHost, duplicateHost, invalidHost
        case conflictingFraming, invalidContentLength, conflictingContentLength
        case invalidTransferEncoding, transferEncodingInHTTP10
        case invalidChunkSize, invalidChunkExtension, invalidChunkFraming
        case malformedStatusLine, truncatedHead, truncatedBody
    }

    private let code: Code
    /// What the server must answer.
    public var status: HTTPStatus
    /// Human text for a problem+json "detail".
    public var detail: String

    private init(_ code: Code, _ status: HTTPStatus, _ detail: String) {
        self.code = code
        self.status = status
        self.detail = detail
    }

    public var description: String { "\(status.code) \(status.reasonPhrase): \(detail)" }

    public static func == (lhs: HTTPParseError, rhs: HTTPParseError) -> Bool {
        lhs.code == rhs.code
    }

    // MARK: Limits

    public static let requestLineTooLong = HTTPParseError(
        .requestLineTooLong, .uriTooLong, "The request line exceeds the configured limit.")
    public static let headerSectionTooLarge = HTTPParseError(
        .headerSectionTooLarge, .requestHeaderFieldsTooLarge, "The header section exceeds the configured size limit.")
    public static let tooManyHeaders = HTTPParseError(
        .tooManyHeaders, .requestHeaderFieldsTooLarge, "The message has more header fields than allowed.")
    public static let bodyTooLarge = HTTPParseError(
        .bodyTooLarge, .payloadTooLarge, "The message body exceeds the configured size limit.")

    // MARK: Unsupported features

    public static let unsupportedTransferCoding = HTTPParseError(
        .unsupportedTransferCoding, .notImplemented, "Only the chunked transfer coding is supported.")
    public static let unsupportedVersion = HTTPParseError(
        .unsupportedVersion, .httpVersionNotSupported, "Only HTTP/1.0 and HTTP/1.1 are supported.")

    // MARK: Request line

    public static let malformedRequestLine = HTTPParseError(
        .malformedRequestLine, .badRequest, "The request line is not 'method SP target SP version CRLF'.")
    public static let invalidMethod = HTTPParseError(
        .invalidMethod, .badRequest, "The method contains a character that is not a token character.")
    public static let invalidTarget = HTTPParseError(
        .invalidTarget, .badRequest, "The request target is not valid for this method.")
    public static let invalidVersion = HTTPParseError(
        .invalidVersion, .badRequest, "The protocol version is not of the form HTTP/DIGIT.DIGIT.")

    // MARK: Field lines

    public static let invalidHeaderName = HTTPParseError(
        .invalidHeaderName, .badRequest, "A header field name is empty or contains a non-token character.")
    public static let missingHeaderColon = HTTPParseError(
        .missingHeaderColon, .badRequest, "A header field line has no colon.")
    public static let invalidHeaderValue = HTTPParseError(
        .invalidHeaderValue, .badRequest, "A header field value contains a control character.")
    public static let whitespaceBeforeColon = HTTPParseError(
        .whitespaceBeforeColon, .badRequest, "Whitespace between a header field name and its colon is not allowed.")
    public static let obsoleteLineFolding = HTTPParseError(
        .obsoleteLineFolding, .badRequest, "Obsolete line folding (a field line starting with whitespace) is not allowed.")
    public static let bareCR = HTTPParseError(
        .bareCR, .badRequest, "A CR not followed by LF was found.")
    public static let bareLineFeed = HTTPParseError(
        .bareLineFeed, .badRequest, "Lines must end with CRLF; a bare LF was found.")

    // MARK: Host

    public static let missingHost = HTTPParseError(
        .missingHost, .badRequest, "HTTP/1.1 requests must carry a Host header field.")
    public static let duplicateHost = HTTPParseError(
        .duplicateHost, .badRequest, "The request carries more than one Host header field.")
    public static let invalidHost = HTTPParseError(
        .invalidHost, .badRequest, "The Host header field value is not a valid authority.")

    // MARK: Framing

    public static let conflictingFraming = HTTPParseError(
        .conflictingFraming, .badRequest, "Content-Length and Transfer-Encoding must not both be present.")
    public static let invalidContentLength = HTTPParseError(
        .invalidContentLength, .badRequest, "Content-Length must be a non-negative decimal integer.")
    public static let conflictingContentLength = HTTPParseError(
        .conflictingContentLength, .badRequest, "The message carries differing Content-Length values.")
    public static let invalidTransferEncoding = HTTPParseError(
        .invalidTransferEncoding, .badRequest, "Transfer-Encoding must end with exactly one 'chunked' coding.")
    public static let transferEncodingInHTTP10 = HTTPParseError(
        .transferEncodingInHTTP10, .badRequest, "Transfer-Encoding is not allowed in an HTTP/1.0 message.")
    public static let invalidChunkSize = HTTPParseError(
        .invalidChunkSize, .badRequest, "A chunk size is not a valid hexadecimal number.")
    public static let invalidChunkExtension = HTTPParseError(
        .invalidChunkExtension, .badRequest, "A chunk extension is malformed or too long.")
    public static let invalidChunkFraming = HTTPParseError(
        .invalidChunkFraming, .badRequest, "Chunk data must be followed by CRLF.")

    // MARK: Responses

    public static let malformedStatusLine = HTTPParseError(
        .malformedStatusLine, .badGateway, "The status line is not 'HTTP/1.x SP 3DIGIT SP reason CRLF'.")
    public static let truncatedHead = HTTPParseError(
        .truncatedHead, .badGateway, "The connection closed before the response head was complete.")
    public static let truncatedBody = HTTPParseError(
        .truncatedBody, .badGateway, "The connection closed before the message body was complete.")
}
