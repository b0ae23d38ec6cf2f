import HTTP1
import HTTPServer
import Synchronization

/// Keeps a usable incoming `X-Request-ID` (else makes one), so a handler, its upstream calls and
/// the answer all carry the same id.
enum RequestIdentity {
    /// Visible ASCII, at most 128 bytes: anything else is replaced, never echoed.
    static func isUsable(_ id: String) -> Bool {
        let bytes = id.utf8
        return (1...128).contains(bytes.count) && bytes.allSatisfy { (0x21...0x7E).contains($0) }
    }

    static func identify(_ request: HTTPRequest) -> String {
        incoming(request.headers) ?? make()
    }

    /// The id of a request the HTTP layer may have refused before its head was complete.
    static func identify(_ head: HTTPRequestHead?) -> String {
        head.flatMap { incoming($0.headers) } ?? make()
    }

    /// Adds the request's `X-Request-ID` to an answer, a new id written straight into the field
    /// block: an answer given at once needs the id nowhere else, so no String is made for it.
    static func addField(for head: HTTPRequestHead?, to fields: inout FieldBlock) {
        if let head, let incoming = incoming(head.headers) {
            fields.add("X-Request-ID", incoming)
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buffer in
            writeNew(into: buffer)
            fields.add("X-Request-ID", bytes: UnsafeBufferPointer(buffer))
        }
    }

    /// The request's own id, when it sent a usable one.
    private static func incoming(_ headers: HTTPHeaders) -> String? {
        guard let id = headers["X-Request-ID"], isUsable(id) else { return nil }
        return id
    }

    /// A random per-process prefix and a counter: unique within the process and unlikely to
    /// collide across processes, without a `getrandom` call per request.
    static func make() -> String {
        // One allocation: the id is longer than a small string, so each piece would be one.
        String(unsafeUninitializedCapacity: 32) { buffer in
            writeNew(into: buffer)
            return 32
        }
    }

    /// 32 hex digits of a new id into `buffer` (at least 32 bytes).
    private static func writeNew(into buffer: UnsafeMutableBufferPointer<UInt8>) {
        let sequence = UInt64(truncatingIfNeeded: counter.wrappingAdd(1, ordering: .relaxed).newValue)
        writeHex(prefix, into: buffer, at: 0)
        writeHex(sequence, into: buffer, at: 16)
    }

    private static let prefix = UInt64.random(in: .min ... .max)
    private static let counter = Atomic<Int>(0)
    private static let digits = Array("0123456789abcdef".utf8)

    private static func writeHex(_ value: UInt64, into buffer: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
        for index in 0..<16 {
            buffer[start + index] = digits[Int((value >> UInt64(60 - index * 4)) & 0xF)]
        }
    }
}
