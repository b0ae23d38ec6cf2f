/// Writes a request head for the client. Host, Content-Length and the like are
/// supplied by the caller as headers.
package enum HTTPRequestSerializer {
    /// Appends "<method> <target> HTTP/1.1\r\n", each header "name: value\r\n", then "\r\n".
    /// CR, LF, NUL and SP in the target (and CR, LF, NUL in headers) are written as
    /// safe bytes so caller data cannot inject lines.
    package static func writeHead(method: HTTPMethod, target: String, headers: HTTPHeaders, into buffer: inout [UInt8]) {
        appendRequestLine(method: method, basePath: "", target: target, into: &buffer)
        HeadWriter.appendFields(headers, into: &buffer)
    }

    /// Like ``writeHead(method:target:headers:into:)`` for the target `basePath + path`, with
    /// `Host: host` first (in place of any Host among `headers`), then `headers`, then `fields`
    /// (already in wire form: they name neither Host nor User-Agent), and `User-Agent:
    /// defaultUserAgent` last unless `headers` has one: written around the caller's fields
    /// instead of into a merged copy of them, and the target written in its two parts.
    package static func writeHead(
        method: HTTPMethod, basePath: String, path: String, host: String, headers: HTTPHeaders, fields: FieldBlock = FieldBlock(),
        defaultUserAgent: String, into buffer: inout [UInt8]
    ) {
        appendRequestLine(method: method, basePath: basePath, target: path, into: &buffer)
        HeadWriter.appendField("Host", host, into: &buffer)
        var hasUserAgent = false
        for (name, value) in headers {
            if HTTPHeaders.namesMatch(name, "Host") { continue }
            if HTTPHeaders.namesMatch(name, "User-Agent") { hasUserAgent = true }
            HeadWriter.appendField(name, value, into: &buffer)
        }
        buffer.append(contentsOf: fields.bytes)
        if !hasUserAgent { HeadWriter.appendField("User-Agent", defaultUserAgent, into: &buffer) }
        buffer.append(ASCII.cr)
        buffer.append(ASCII.lf)
    }

    /// The target is `basePath` followed by `target`, written without joining them first.
    private static func appendRequestLine(method: HTTPMethod, basePath: String, target: String, into buffer: inout [UInt8]) {
        HeadWriter.appendSanitized(method.rawValue, into: &buffer)
        buffer.append(ASCII.space)
        appendTarget(basePath, into: &buffer)
        appendTarget(target, into: &buffer)
        buffer.append(contentsOf: " HTTP/1.1\r\n".utf8)
    }

    private static func appendTarget(_ text: String, into buffer: inout [UInt8]) {
        // Nearly every target needs no escape: checked in one pass, then copied in one go.
        let copied = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            var escapes = 0
            for byte in bytes {
                escapes &+= byte == ASCII.space || HeadWriter.sanitized(byte) != byte ? 1 : 0
            }
            guard escapes == 0 else { return false }
            buffer.append(contentsOf: bytes)
            return true
        }
        if copied == true { return }
        for byte in text.utf8 {
            // A raw SP would split the target; percent-encode it instead.
            if byte == ASCII.space {
                buffer.append(contentsOf: "%20".utf8)
            } else {
                buffer.append(HeadWriter.sanitized(byte))
            }
        }
    }
}
