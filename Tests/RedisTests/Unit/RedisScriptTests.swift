import RESP
import Redis
import Testing

@Suite("Scripts")
struct RedisScriptTests {
    /// Digests from a reference SHA-1, including lengths around the 56- and 64-byte padding edges.
    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("return 1", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db"),
        (String(repeating: "a", count: 55), "c1c8bbdc22796e28c0e15163d20899b65621d65a"),
        (String(repeating: "a", count: 56), "c2db330f6083854c99d4b5bfb6e8f29f201be699"),
        (String(repeating: "a", count: 64), "0098ba824b5c16427bd7a1122a5a442a25ec644d"),
        (String(repeating: "a", count: 1000), "291e9a6c66994949b57ba5e650361e98fc36b1ba"),
        ("é€", "f299a77642b6437431ada56c0643f7b8e99b5622"),
    ])
    func digestIsSHA1OfTheBody(_ body: String, _ digest: String) {
        #expect(RedisScript(body).sha1 == digest)
    }
}
