/// Which of the fields that govern a message's framing and persistence a header section holds,
/// noted while its lines are read, so the message-level rules scan the fields only when one is
/// there (a typical request has only Host of them).
struct FramingFields: Sendable {
    private(set) var hostCount = 0
    /// The first Host value.
    private(set) var host: String?
    private(set) var hasConnection = false
    private(set) var hasContentLength = false
    private(set) var hasTransferEncoding = false
    private(set) var hasExpect = false

    mutating func note(name: UnsafeRawBufferPointer, value: String) {
        switch name.count {
        case 4 where Self.matches(name, "host"):
            hostCount += 1
            if host == nil { host = value }
        case 6 where Self.matches(name, "expect"): hasExpect = true
        case 10 where Self.matches(name, "connection"): hasConnection = true
        case 14 where Self.matches(name, "content-length"): hasContentLength = true
        case 17 where Self.matches(name, "transfer-encoding"): hasTransferEncoding = true
        default: break
        }
    }

    private static func matches(_ name: UnsafeRawBufferPointer, _ lowercase: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        for index in 0..<name.count where ASCII.lowercased(name[index]) != expected[index] {
            return false
        }
        return true
    }
}
