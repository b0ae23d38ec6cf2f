/// Which of the fields that govern a message's framing and persistence a header section holds,
/// noted while its lines are read, so the message-level rules scan the fields only when one is
/// there (a typical request has only Host of them).
struct FramingFields: Sendable {
    private(set) var hostCount = 0
    /// The first Host value.
    private(set) var host: String?
    private(set) var connectionCount = 0
    /// The first Connection value: with `connectionCount == 1` the rules need no scan.
    private(set) var connection: String?
    private(set) var contentLengthCount = 0
    /// The first Content-Length value: with `contentLengthCount == 1` the rules need no scan.
    private(set) var contentLength: String?
    private(set) var hasTransferEncoding = false
    private(set) var hasExpect = false

    var hasConnection: Bool { connectionCount > 0 }
    var hasContentLength: Bool { contentLengthCount > 0 }

    /// Whether the message-level rules can decide from these notes alone, without the fields:
    /// no Transfer-Encoding, and at most one Content-Length and one Connection line.
    var decideFramingAlone: Bool {
        !hasTransferEncoding && contentLengthCount <= 1 && connectionCount <= 1
    }

    /// The fields noted here, recognised by name.
    enum Field {
        case host, expect, connection, contentLength, transferEncoding

        init?(name: UnsafeRawBufferPointer) {
            switch name.count {
            case 4 where FramingFields.matches(name, "host"): self = .host
            case 6 where FramingFields.matches(name, "expect"): self = .expect
            case 10 where FramingFields.matches(name, "connection"): self = .connection
            case 14 where FramingFields.matches(name, "content-length"): self = .contentLength
            case 17 where FramingFields.matches(name, "transfer-encoding"): self = .transferEncoding
            default: return nil
            }
        }
    }

    mutating func note(name: UnsafeRawBufferPointer, value: String) {
        if let field = Field(name: name) { note(field, value: value) }
    }

    mutating func note(_ field: Field, value: String) {
        switch field {
        case .host:
            hostCount += 1
            if host == nil { host = value }
        case .expect: hasExpect = true
        case .connection:
            connectionCount += 1
            if connection == nil { connection = value }
        case .contentLength:
            contentLengthCount += 1
            if contentLength == nil { contentLength = value }
        case .transferEncoding: hasTransferEncoding = true
        }
    }

    fileprivate static func matches(_ name: UnsafeRawBufferPointer, _ lowercase: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        for index in 0..<name.count where ASCII.lowercased(name[index]) != expected[index] {
            return false
        }
        return true
    }
}
