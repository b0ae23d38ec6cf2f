import Synchronization

/// Random-looking 64-bit values for new trace and span ids, made without a system call.
///
/// `UInt64.random(in:)` asks the kernel (`getrandom`) each time, and a request without a
/// `traceparent` needs three ids (bench/HISTORY.md has what that cost). Ids need to be unique and
/// hard to guess, not secret: each is a counter passed through a bijective mix (SplitMix64's
/// finalizer) under a key drawn once from the system generator, so no two values from one process
/// repeat, and the sequence cannot be predicted without the key.
package enum TraceIdentifiers {
    private static let key = UInt64.random(in: .min ... .max)
    private static let counter = Atomic<UInt64>(0)

    /// The next id: never zero (the W3C format reserves all zeros for "invalid").
    package static func next() -> UInt64 {
        while true {
            let value = mix(counter.wrappingAdd(1, ordering: .relaxed).newValue &+ key)
            if value != 0 { return value }
        }
    }

    static func mix(_ input: UInt64) -> UInt64 {
        var z = input &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
