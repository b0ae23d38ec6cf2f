/// Checks `uri-host [ ":" port ]` (RFC 9110 §7.2, RFC 3986 §3.2) by character class.
/// A server must reject an invalid Host (RFC 9112 §3.2), and doing it here keeps
/// odd bytes (spaces, slashes, '@') from ever reaching virtual-host routing.
enum HostValidator {
    /// True when every byte may appear in an authority (reg-name, IPv4, IP-literal,
    /// port). An empty value is valid: it is what a target without authority implies.
    static func isValidAuthority<C: Collection<UInt8>>(_ bytes: C) -> Bool {
        bytes.allSatisfy(isAuthorityByte)
    }

    /// Read in place: every request has a Host field, and walking a `String.UTF8View` byte by
    /// byte costs several times a walk over its contiguous storage (which native strings have).
    static func isValidHostField(_ value: String) -> Bool {
        value.utf8.withContiguousStorageIfAvailable { isValidAuthority($0) } ?? isValidAuthority(value.utf8)
    }

    private static func isAuthorityByte(_ byte: UInt8) -> Bool {
        if ASCII.isAlpha(byte) || ASCII.isDigit(byte) { return true }
        switch byte {
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
             UInt8(ascii: "%"), UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"),
             UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="),
             UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"):
            return true
        default:
            return false
        }
    }
}
