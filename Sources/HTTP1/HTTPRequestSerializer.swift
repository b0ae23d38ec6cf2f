/// Writes a request head for the client. Host, Content-Length and the like are
/// supplied by the caller as headers.
public enum HTTPRequestSerializer {
    /// Appends "<method> <target> HTTP/1.1\r\n", each header "name: value\r\n", then "\r\n".
    /// CR, LF, NUL and SP in the target (and CR, LF, NUL in headers) are written as
    /// safe bytes so caller data cannot inject lines.
    public static func writeHead(method: HTTPMethod, target: String, headers: HTTPHeaders, into buffer: inout [UInt8]) {
        HeadWriter.appendSanitized(method.rawValue, into: &buffer)
        buffer.append(ASCII.space)
        for byte in target.utf8 {
            // A raw SP would split the target; percent-encode it instead.
            if byte == ASCII.space {
                buffer.append(contentsOf: "%20".utf8)
            } else {
                buffer.append(HeadWriter.sanitized(byte))
            }
        }
        buffer.append(contentsOf: " HTTP/1.1\r\n".utf8)
        HeadWriter.appendFields(headers, into: &buffer)
    }
}
