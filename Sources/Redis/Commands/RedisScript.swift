/// A Lua script run with `EVALSHA`, carrying its body so the connection can reload it.
///
/// Redis forgets its script cache on a restart, a failover or `SCRIPT FLUSH`; keeping the body
/// next to the digest lets the command connection answer `NOSCRIPT` by itself instead of every
/// caller handling it.
package struct RedisScript: Sendable, Hashable {
    /// The script's source, sent only when Redis does not know it.
    package let body: String
    /// The SHA-1 of `body` in lowercase hexadecimal: the name `EVALSHA` uses.
    package let sha1: String

    package init(_ body: String) {
        self.body = body
        self.sha1 = SHA1.hexDigest(of: Array(body.utf8))
    }
}
