/// Strong entity tags derived from a body's bytes.
///
/// FNV-1a 64 is cheap, stable across processes and runs (unlike `Hasher`, which is seeded per
/// process), so every replica gives the same document the same tag and `If-None-Match` works
/// behind a load balancer.
public enum EntityTag {
    public static func strong(for body: [UInt8]) -> String {
        let hash = fnv1a64(body)
        let hex = String(hash, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
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
