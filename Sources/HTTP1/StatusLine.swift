/// Parses `HTTP-version SP status-code SP [ reason-phrase ]` (RFC 9112 §4). A
/// missing SP before an empty reason is tolerated because some servers omit it.
struct StatusLine: Sendable, Equatable {
    var version: HTTPVersion
    var status: HTTPStatus

    /// - Parameter line: the line content without its CRLF (bare CR/LF already excluded).
    static func parse(_ line: UnsafeRawBufferPointer) throws(HTTPParseError) -> StatusLine {
        guard line.count >= 12,
              line[0..<5].elementsEqual("HTTP/".utf8),
              ASCII.isDigit(line[5]), line[6] == ASCII.dot, ASCII.isDigit(line[7]),
              line[8] == ASCII.space,
              ASCII.isDigit(line[9]), ASCII.isDigit(line[10]), ASCII.isDigit(line[11])
        else { throw .malformedStatusLine }
        guard line[5] == UInt8(ascii: "1"), line[7] <= UInt8(ascii: "1") else { throw .unsupportedVersion }
        let version = HTTPVersion(major: 1, minor: Int(line[7] &- UInt8(ascii: "0")))
        let code = (9..<12).reduce(0) { $0 * 10 + Int(line[$1] &- UInt8(ascii: "0")) }
        guard (100...599).contains(code) else { throw .malformedStatusLine }
        var reason = ""
        if line.count > 12 {
            guard line[12] == ASCII.space else { throw .malformedStatusLine }
            let phrase = line[13...]
            guard phrase.allSatisfy(ASCII.isFieldValueByte) else { throw .malformedStatusLine }
            reason = String(decoding: UnsafeRawBufferPointer(rebasing: phrase), as: UTF8.self)
        }
        return StatusLine(version: version, status: HTTPStatus(code: code, reasonPhrase: reason))
    }
}
