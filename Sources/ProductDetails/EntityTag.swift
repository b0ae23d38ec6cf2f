/// Strong entity tags derived from a body's bytes.
///
/// FNV-1a 64 is cheap, stable across processes and runs (unlike `Hasher`, which is seeded per
/// process), so every replica gives the same document the same tag and `If-None-Match` works
/// behind a load balancer.
public enum EntityTag {
    /// `"` + 16 lowercase hex digits + `"`, written into one allocation.
    public static func strong(for body: [UInt8]) -> String {
        let hash = fnv1a64(body)
        return String(unsafeUninitializedCapacity: 18) { buffer in
            buffer[0] = UInt8(ascii: "\"")
            for index in 0..<16 {
                let nibble = UInt8(truncatingIfNeeded: hash >> UInt64(60 - index * 4)) & 0xF
                buffer[1 + index] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
            }
            buffer[17] = UInt8(ascii: "\"")
            return 18
        }
    }

    public static func fnv1a64(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
