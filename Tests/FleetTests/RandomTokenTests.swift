@testable import Fleet
import Testing

@Suite("Random tokens")
struct RandomTokenTests {
    /// Short enough for a string to hold inline, in an alphabet no Redis value or Lua pattern
    /// treats specially.
    @Test func aTokenIsFifteenURLSafeCharacters() {
        let token = RandomToken.make()
        #expect(token.utf8.count == 15)
        #expect(token.utf8.allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        })
    }

    /// The counter's mixing is a bijection of 48 bits: no two counters give one token, and the
    /// process's part stays where it is.
    @Test func distinctCountersGiveDistinctTokens() {
        var seen = Set<UInt64>()
        for value in 0..<UInt64(200_000) {
            let mixed = RandomToken.mixed(value)
            #expect(mixed < 1 << 48)
            seen.insert(mixed)
        }
        #expect(seen.count == 200_000)
        // Counters that differ above bit 47 would be the same token: the counter never gets there.
        #expect(RandomToken.mixed(1 << 48) == RandomToken.mixed(0))
        let tokens = Set((0..<1000).map { _ in RandomToken.make() })
        #expect(tokens.count == 1000)
        #expect(Set(tokens.map { $0.prefix(7) }).count == 1, "one process, one random part")
    }

    /// Six bits a character, most significant first.
    @Test func theTextIsTheBitsInOrder() {
        #expect(RandomToken.text(process: 0, counter: 0) == "AAAAAAAAAAAAAAA")
        #expect(RandomToken.text(process: 1, counter: 63) == "AAAAAABAAAAAAA_")
        #expect(RandomToken.text(process: (1 << 42) - 1, counter: (1 << 48) - 1) == "_______________")
    }
}
