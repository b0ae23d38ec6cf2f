import HTTP1
import HTTPServer

/// Keeps a usable incoming `X-Request-ID` (else makes one), so a handler, its upstream calls and
/// the answer all carry the same id.
enum RequestIdentity {
    /// Visible ASCII, at most 128 bytes: anything else is replaced, never echoed.
    static func isUsable(_ id: String) -> Bool {
        let bytes = id.utf8
        return (1...128).contains(bytes.count) && bytes.allSatisfy { (0x21...0x7E).contains($0) }
    }

    static func assign(to request: inout HTTPRequest) -> String {
        if let incoming = request.headers["X-Request-ID"], isUsable(incoming) { return incoming }
        let id = make()
        request.head.headers.replaceOrAdd(name: "X-Request-ID", value: id)
        return id
    }

    /// 16 random hex digits.
    static func make() -> String {
        let value = UInt64.random(in: .min ... .max)
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
