import JSON

/// W3C Trace Context (https://www.w3.org/TR/trace-context/): the `traceparent` of a request and
/// its `tracestate`, which this service passes on to its upstreams, each attempt as a span of its
/// own. Parsing and formatting are pure.
///
/// The ids are kept as integers and written as hex only where they are sent or logged: a request
/// without a `traceparent` starts a trace, and two strings made for it on every request were two
/// allocations on the way to its log line.
package struct TraceContext: Sendable, Equatable {
    /// The trace id's 128 bits, never all zero.
    package let traceIDHigh: UInt64
    package let traceIDLow: UInt64
    /// The span of the caller (incoming) or of this service's attempt (outgoing); never zero.
    package let parentIDValue: UInt64
    /// Only the `sampled` flag is passed on: the other bits mean nothing in version `00`.
    package let sampled: Bool
    /// The vendors' `tracestate`, passed on unchanged; nil when there was none.
    package let traceState: String?

    package init(traceIDHigh: UInt64, traceIDLow: UInt64, parentID: UInt64, sampled: Bool, traceState: String? = nil) {
        self.traceIDHigh = traceIDHigh
        self.traceIDLow = traceIDLow
        self.parentIDValue = parentID
        self.sampled = sampled
        self.traceState = traceState
    }

    /// 32 lowercase hex digits.
    package var traceID: String { Self.hex(traceIDHigh, traceIDLow) }
    /// 16 lowercase hex digits.
    package var parentID: String { Self.hex(parentIDValue) }

    /// The incoming context, or nil when `traceparent` is absent or malformed (then `tracestate`
    /// is ignored too, as the specification asks).
    ///
    /// Version `00` is exactly 55 characters; a later version may be longer, with a `-` after the
    /// four fields this version knows, which are read. Version `ff` is invalid.
    package static func parse(traceparent: String?, tracestate: String?) -> TraceContext? {
        guard let traceparent else { return nil }
        let bytes = Array(traceparent.utf8)
        guard bytes.count >= 55, bytes[2] == dash, bytes[35] == dash, bytes[52] == dash else { return nil }
        guard let version = value(ofHex: bytes[0..<2]), version != 0xff else { return nil }
        if version == 0 {
            guard bytes.count == 55 else { return nil }
        } else if bytes.count > 55, bytes[55] != dash {
            return nil
        }
        guard let high = value(ofHex: bytes[3..<19]), let low = value(ofHex: bytes[19..<35]),
              let parent = value(ofHex: bytes[36..<52]), let flags = value(ofHex: bytes[53..<55]),
              high != 0 || low != 0, parent != 0 else { return nil }
        return TraceContext(
            traceIDHigh: high, traceIDLow: low, parentID: parent, sampled: flags & 1 == 1,
            traceState: tracestate.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// A new trace, for a request that came without a usable `traceparent`: not sampled, as no
    /// caller asked for it.
    package static func start(random: () -> UInt64 = TraceIdentifiers.next) -> TraceContext {
        TraceContext(traceIDHigh: random(), traceIDLow: random(), parentID: random(), sampled: false)
    }

    /// The context of one outgoing call: the same trace, flag and state, a new span id.
    package func child(random: () -> UInt64 = TraceIdentifiers.next) -> TraceContext {
        TraceContext(traceIDHigh: traceIDHigh, traceIDLow: traceIDLow, parentID: random(), sampled: sampled, traceState: traceState)
    }

    /// `00-<trace-id>-<parent-id>-<flags>`: this service speaks version `00`.
    package var traceparent: String {
        String(unsafeUninitializedCapacity: Self.traceparentLength) { text in
            writeTraceparent(into: text)
            return Self.traceparentLength
        }
    }

    /// The `traceparent` value's bytes, made on the stack: it goes out with every upstream
    /// attempt, written straight into the request's fields. Not generic: called from another
    /// module, a generic would look its result type's metadata up on every call.
    package func withTraceparent(_ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.traceparentLength) { text in
            writeTraceparent(into: text)
            body(UnsafeBufferPointer(text))
        }
    }

    private static let traceparentLength = 55

    private func writeTraceparent(into text: UnsafeMutableBufferPointer<UInt8>) {
        text[0] = UInt8(ascii: "0")
        text[1] = UInt8(ascii: "0")
        text[2] = Self.dash
        JSONBytesWriter.writeHex(traceIDHigh, into: text, at: 3)
        JSONBytesWriter.writeHex(traceIDLow, into: text, at: 19)
        text[35] = Self.dash
        JSONBytesWriter.writeHex(parentIDValue, into: text, at: 36)
        text[52] = Self.dash
        text[53] = UInt8(ascii: "0")
        text[54] = UInt8(ascii: sampled ? "1" : "0")
    }

    /// Writes the trace id as a JSON string (its 32 hex digits need no escaping).
    package func writeTraceID(into json: inout JSONBytesWriter) {
        json.raw("\"")
        json.hex(traceIDHigh)
        json.hex(traceIDLow)
        json.raw("\"")
    }

    private static let dash = UInt8(ascii: "-")

    /// The value of lowercase hex digits (at most 16), or nil when any is not one.
    private static func value(ofHex digits: ArraySlice<UInt8>) -> UInt64? {
        var value: UInt64 = 0
        for digit in digits {
            let nibble: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = digit - UInt8(ascii: "a") + 10
            default: return nil
            }
            value = value << 4 | UInt64(nibble)
        }
        return value
    }

    /// 16 lowercase hex digits, zero-padded.
    static func hex(_ value: UInt64) -> String {
        String(unsafeUninitializedCapacity: 16) { text in
            JSONBytesWriter.writeHex(value, into: text, at: 0)
            return 16
        }
    }

    /// The 32 digits of a trace id made of two values.
    static func hex(_ high: UInt64, _ low: UInt64) -> String {
        String(unsafeUninitializedCapacity: 32) { text in
            JSONBytesWriter.writeHex(high, into: text, at: 0)
            JSONBytesWriter.writeHex(low, into: text, at: 16)
            return 32
        }
    }
}
