/// W3C Trace Context (https://www.w3.org/TR/trace-context/): the `traceparent` of a request and
/// its `tracestate`, which this service passes on to its upstreams, each attempt as a span of its
/// own. Parsing and formatting are pure.
public struct TraceContext: Sendable, Equatable {
    /// 32 lowercase hex digits, not all zero.
    public let traceID: String
    /// 16 lowercase hex digits, not all zero: the span of the caller (incoming) or of this
    /// service's attempt (outgoing).
    public let parentID: String
    /// Only the `sampled` flag is passed on: the other bits mean nothing in version `00`.
    public let sampled: Bool
    /// The vendors' `tracestate`, passed on unchanged; nil when there was none.
    public let traceState: String?

    public init(traceID: String, parentID: String, sampled: Bool, traceState: String? = nil) {
        self.traceID = traceID
        self.parentID = parentID
        self.sampled = sampled
        self.traceState = traceState
    }

    /// The incoming context, or nil when `traceparent` is absent or malformed (then `tracestate`
    /// is ignored too, as the specification asks).
    ///
    /// Version `00` is exactly 55 characters; a later version may be longer, with a `-` after the
    /// four fields this version knows, which are read. Version `ff` is invalid.
    public static func parse(traceparent: String?, tracestate: String?) -> TraceContext? {
        guard let traceparent else { return nil }
        let bytes = Array(traceparent.utf8)
        guard bytes.count >= 55, bytes[2] == dash, bytes[35] == dash, bytes[52] == dash else { return nil }
        let version = bytes[0..<2]
        guard isLowerHex(version), version != [f, f] else { return nil }
        if version == [zero, zero] {
            guard bytes.count == 55 else { return nil }
        } else if bytes.count > 55, bytes[55] != dash {
            return nil
        }
        let traceID = bytes[3..<35]
        let parentID = bytes[36..<52]
        let flags = bytes[53..<55]
        guard isLowerHex(traceID), isLowerHex(parentID), isLowerHex(flags),
              !traceID.allSatisfy({ $0 == zero }), !parentID.allSatisfy({ $0 == zero }) else { return nil }
        let sampled = (hexValue(flags.last!) & 1) == 1
        return TraceContext(
            traceID: String(decoding: traceID, as: UTF8.self), parentID: String(decoding: parentID, as: UTF8.self),
            sampled: sampled, traceState: tracestate.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// A new trace, for a request that came without a usable `traceparent`: not sampled, as no
    /// caller asked for it.
    public static func start(random: () -> UInt64 = TraceIdentifiers.next) -> TraceContext {
        TraceContext(traceID: hex(random(), random()), parentID: hex(random()), sampled: false)
    }

    /// The context of one outgoing call: the same trace, flag and state, a new span id.
    public func child(random: () -> UInt64 = TraceIdentifiers.next) -> TraceContext {
        TraceContext(traceID: traceID, parentID: Self.hex(random()), sampled: sampled, traceState: traceState)
    }

    /// `00-<trace-id>-<parent-id>-<flags>`: this service speaks version `00`.
    public var traceparent: String {
        "00-\(traceID)-\(parentID)-\(sampled ? "01" : "00")"
    }

    private static let dash = UInt8(ascii: "-")
    private static let zero = UInt8(ascii: "0")
    private static let f = UInt8(ascii: "f")

    private static func isLowerHex(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8 {
        byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : byte - UInt8(ascii: "a") + 10
    }

    /// 16 lowercase hex digits, zero-padded, written straight into the string.
    static func hex(_ value: UInt64) -> String {
        String(unsafeUninitializedCapacity: 16) { text in
            write(value, into: text, at: 0)
            return 16
        }
    }

    /// The 32 digits of a trace id made of two values.
    static func hex(_ high: UInt64, _ low: UInt64) -> String {
        String(unsafeUninitializedCapacity: 32) { text in
            write(high, into: text, at: 0)
            write(low, into: text, at: 16)
            return 32
        }
    }

    private static func write(_ value: UInt64, into text: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
        let digits: StaticString = "0123456789abcdef"
        for index in 0..<16 {
            let nibble = Int((value >> UInt64(60 - 4 * index)) & 0xF)
            text[start + index] = digits.utf8Start[nibble]
        }
    }
}
