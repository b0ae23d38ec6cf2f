/// Writes a response head. Framing headers (Content-Length, Connection, ...) are
/// the caller's decision, so this only formats what it is given.
package enum HTTPResponseSerializer {
    /// Appends "HTTP/1.1 <code> <reason>\r\n", each header "name: value\r\n", then "\r\n".
    /// CR, LF and NUL in caller-supplied text are written as SP so a value can never
    /// start a new header line (response splitting).
    /// With `terminated` false the blank line is left out, for a caller that adds fields of its
    /// own after these.
    package static func writeHead(status: HTTPStatus, headers: HTTPHeaders, into buffer: inout [UInt8], terminated: Bool = true) {
        buffer.append(contentsOf: "HTTP/1.1 ".utf8)
        HeadWriter.appendStatusCode(status.code, into: &buffer)
        buffer.append(ASCII.space)
        HeadWriter.appendSanitized(status.reasonPhrase, into: &buffer)
        buffer.append(ASCII.cr)
        buffer.append(ASCII.lf)
        HeadWriter.appendFields(headers, into: &buffer, terminated: terminated)
    }
}
