/// Strong entity tags derived from a body's bytes.
///
/// The tag is the body's XXH64: cheap and stable across processes and runs (unlike `Hasher`,
/// which is seeded per process), so every replica gives the same document the same tag and
/// `If-None-Match` works behind a load balancer.
package enum EntityTag {
    /// `"` + 16 lowercase hex digits + `"`, written into one allocation.
    package static func strong(for body: [UInt8]) -> String {
        let hash = body.withUnsafeBytes(XXHash64.hash)
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

    /// The tag of a body's gzip form, derived from its identity tag (`"<hash>"` → `"<hash>-gz"`).
    package static func gzipVariant(of identityETag: String) -> String {
        var tag = identityETag
        tag.insert(contentsOf: "-gz", at: tag.index(before: tag.endIndex))
        return tag
    }
}
