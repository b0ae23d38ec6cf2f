/// Strong entity tags derived from a body's bytes.
///
/// The tag is the body's XXH64: cheap and stable across processes and runs (unlike `Hasher`,
/// which is seeded per process), so every replica gives the same document the same tag and
/// `If-None-Match` works behind a load balancer.
package enum EntityTag {
    /// How many characters of the hash a tag holds: 60 bits, six a character.
    static let hashCharacters = 10

    /// `"` + the top 60 bits of the body's XXH64 as 10 URL-safe base64 characters + `"`: twelve
    /// bytes, and fifteen with the gzip variant's `-gz`, which a Swift string holds inline, so
    /// no tag costs an allocation (a page read from the shared cache makes both). Sixty bits are
    /// plenty: a tag only tells one version of a page from another.
    package static func strong(for body: [UInt8]) -> String {
        strong(for: body[...])
    }

    package static func strong(for body: ArraySlice<UInt8>) -> String {
        let hash = body.withUnsafeBytes(XXHash64.hash)
        return String(unsafeUninitializedCapacity: hashCharacters + 2) { buffer in
            buffer[0] = UInt8(ascii: "\"")
            URLSafeBase64.write(hash >> 4, bits: 6 * hashCharacters, into: buffer, at: 1)
            buffer[hashCharacters + 1] = UInt8(ascii: "\"")
            return hashCharacters + 2
        }
    }

    /// The tag of a body's gzip form, derived from its identity tag (`"<hash>"` → `"<hash>-gz"`).
    package static func gzipVariant(of identityETag: String) -> String {
        var identity = identityETag
        return identity.withUTF8 { identity in
            guard let closing = identity.last else { return "-gz" }
            let count = identity.count + 3
            return String(unsafeUninitializedCapacity: count) { buffer in
                for index in 0..<(identity.count - 1) {
                    buffer[index] = identity[index]
                }
                buffer[count - 4] = UInt8(ascii: "-")
                buffer[count - 3] = UInt8(ascii: "g")
                buffer[count - 2] = UInt8(ascii: "z")
                buffer[count - 1] = closing
                return count
            }
        }
    }
}
