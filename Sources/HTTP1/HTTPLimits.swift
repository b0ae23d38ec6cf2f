/// Resource bounds the parsers enforce so a peer cannot make us buffer without end.
/// Each limit maps to the status code the server answers when it is exceeded.
package struct HTTPLimits: Sendable, Equatable {
    /// Longest request line (or status line), excluding its CRLF → 414.
    package var maxRequestLineBytes: Int
    /// Total bytes of field lines (each including its CRLF) in the header section,
    /// shared with chunked trailers → 431.
    package var maxHeaderBytes: Int
    /// Most field lines in the header section plus trailers → 431.
    package var maxHeaderCount: Int
    /// Largest declared Content-Length or decoded body → 413.
    package var maxBodyBytes: Int

    package init(
        maxRequestLineBytes: Int = 8192,
        maxHeaderBytes: Int = 32768,
        maxHeaderCount: Int = 100,
        maxBodyBytes: Int = 1 << 20
    ) {
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
    }
}
