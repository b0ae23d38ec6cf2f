/// Why a message was rejected, carrying the status the server must answer and a
/// human-readable detail for a problem+json body. Equality compares the kind of
/// error only, so tests and callers can match on the static values.
///
/// For the response parser (client side) the status is informational: a client
/// should map any thrown error to 502 Bad Gateway towards its own caller.
package struct HTTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
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
    package var status: HTTPStatus
    /// Human text for a problem+json "detail".
    package var detail: String

    private init(_ code: Code, _ status: HTTPStatus, _ detail: String) {
        self.code = code
        self.status = status
        self.detail = detail
    }

    package var description: String { "\(status.code) \(status.reasonPhrase): \(detail)" }

    package static func == (lhs: HTTPParseError, rhs: HTTPParseError) -> Bool {
        lhs.code == rhs.code
    }

    // MARK: Limits

    package static let requestLineTooLong = HTTPParseError(
        .requestLineTooLong, .uriTooLong, "The request line exceeds the configured limit.")
    package static let headerSectionTooLarge = HTTPParseError(
        .headerSectionTooLarge, .requestHeaderFieldsTooLarge, "The header section exceeds the configured size limit.")
    package static let tooManyHeaders = HTTPParseError(
        .tooManyHeaders, .requestHeaderFieldsTooLarge, "The message has more header fields than allowed.")
    package static let bodyTooLarge = HTTPParseError(
        .bodyTooLarge, .payloadTooLarge, "The message body exceeds the configured size limit.")

    // MARK: Unsupported features

    package static let unsupportedTransferCoding = HTTPParseError(
        .unsupportedTransferCoding, .notImplemented, "Only the chunked transfer coding is supported.")
    package static let unsupportedVersion = HTTPParseError(
        .unsupportedVersion, .httpVersionNotSupported, "Only HTTP/1.0 and HTTP/1.1 are supported.")

    // MARK: Request line

    package static let malformedRequestLine = HTTPParseError(
        .malformedRequestLine, .badRequest, "The request line is not 'method SP target SP version CRLF'.")
    package static let invalidMethod = HTTPParseError(
        .invalidMethod, .badRequest, "The method contains a character that is not a token character.")
    package static let invalidTarget = HTTPParseError(
        .invalidTarget, .badRequest, "The request target is not valid for this method.")
    package static let invalidVersion = HTTPParseError(
        .invalidVersion, .badRequest, "The protocol version is not of the form HTTP/DIGIT.DIGIT.")

    // MARK: Field lines

    package static let invalidHeaderName = HTTPParseError(
        .invalidHeaderName, .badRequest, "A header field name is empty or contains a non-token character.")
    package static let missingHeaderColon = HTTPParseError(
        .missingHeaderColon, .badRequest, "A header field line has no colon.")
    package static let invalidHeaderValue = HTTPParseError(
        .invalidHeaderValue, .badRequest, "A header field value contains a control character.")
    package static let whitespaceBeforeColon = HTTPParseError(
        .whitespaceBeforeColon, .badRequest, "Whitespace between a header field name and its colon is not allowed.")
    package static let obsoleteLineFolding = HTTPParseError(
        .obsoleteLineFolding, .badRequest, "Obsolete line folding (a field line starting with whitespace) is not allowed.")
    package static let bareCR = HTTPParseError(
        .bareCR, .badRequest, "A CR not followed by LF was found.")
    package static let bareLineFeed = HTTPParseError(
        .bareLineFeed, .badRequest, "Lines must end with CRLF; a bare LF was found.")

    // MARK: Host

    package static let missingHost = HTTPParseError(
        .missingHost, .badRequest, "HTTP/1.1 requests must carry a Host header field.")
    package static let duplicateHost = HTTPParseError(
        .duplicateHost, .badRequest, "The request carries more than one Host header field.")
    package static let invalidHost = HTTPParseError(
        .invalidHost, .badRequest, "The Host header field value is not a valid authority.")

    // MARK: Framing

    package static let conflictingFraming = HTTPParseError(
        .conflictingFraming, .badRequest, "Content-Length and Transfer-Encoding must not both be present.")
    package static let invalidContentLength = HTTPParseError(
        .invalidContentLength, .badRequest, "Content-Length must be a non-negative decimal integer.")
    package static let conflictingContentLength = HTTPParseError(
        .conflictingContentLength, .badRequest, "The message carries differing Content-Length values.")
    package static let invalidTransferEncoding = HTTPParseError(
        .invalidTransferEncoding, .badRequest, "Transfer-Encoding must end with exactly one 'chunked' coding.")
    package static let transferEncodingInHTTP10 = HTTPParseError(
        .transferEncodingInHTTP10, .badRequest, "Transfer-Encoding is not allowed in an HTTP/1.0 message.")
    package static let invalidChunkSize = HTTPParseError(
        .invalidChunkSize, .badRequest, "A chunk size is not a valid hexadecimal number.")
    package static let invalidChunkExtension = HTTPParseError(
        .invalidChunkExtension, .badRequest, "A chunk extension is malformed or too long.")
    package static let invalidChunkFraming = HTTPParseError(
        .invalidChunkFraming, .badRequest, "Chunk data must be followed by CRLF.")

    // MARK: Responses

    package static let malformedStatusLine = HTTPParseError(
        .malformedStatusLine, .badGateway, "The status line is not 'HTTP/1.x SP 3DIGIT SP reason CRLF'.")
    package static let truncatedHead = HTTPParseError(
        .truncatedHead, .badGateway, "The connection closed before the response head was complete.")
    package static let truncatedBody = HTTPParseError(
        .truncatedBody, .badGateway, "The connection closed before the message body was complete.")
}
