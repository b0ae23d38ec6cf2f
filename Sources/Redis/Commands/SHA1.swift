/// The SHA-1 digest, which names a script in Redis's script cache (`EVALSHA`).
///
/// Only for that name: Redis chose SHA-1 as an identifier, not for security, and the package
/// takes no crypto library from outside the toolchain, so the 80-round function is written here.
enum SHA1 {
    /// The digest as 40 lowercase hexadecimal digits, the form `EVALSHA` takes.
    static func hexDigest(of message: [UInt8]) -> String {
        var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)
        var padded = message
        padded.append(0x80)
        while padded.count % 64 != 56 { padded.append(0) }
        let bitCount = UInt64(message.count) &* 8
        for shift in stride(from: 56, through: 0, by: -8) { padded.append(UInt8(truncatingIfNeeded: bitCount >> UInt64(shift))) }
        var words = [UInt32](repeating: 0, count: 80)
        for blockStart in stride(from: 0, to: padded.count, by: 64) {
            for index in 0..<16 {
                let offset = blockStart + index * 4
                words[index] = UInt32(padded[offset]) << 24 | UInt32(padded[offset + 1]) << 16
                    | UInt32(padded[offset + 2]) << 8 | UInt32(padded[offset + 3])
            }
            for index in 16..<80 {
                words[index] = rotateLeft(words[index - 3] ^ words[index - 8] ^ words[index - 14] ^ words[index - 16], by: 1)
            }
            compress(&state, words)
        }
        return [state.0, state.1, state.2, state.3, state.4].map(hex).joined()
    }

    private static func compress(_ state: inout (UInt32, UInt32, UInt32, UInt32, UInt32), _ words: [UInt32]) {
        var (a, b, c, d, e) = state
        for index in 0..<80 {
            let mixed: UInt32
            let constant: UInt32
            switch index {
            case 0..<20: (mixed, constant) = ((b & c) | (~b & d), 0x5A82_7999)
            case 20..<40: (mixed, constant) = (b ^ c ^ d, 0x6ED9_EBA1)
            case 40..<60: (mixed, constant) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
            default: (mixed, constant) = (b ^ c ^ d, 0xCA62_C1D6)
            }
            let next = rotateLeft(a, by: 5) &+ mixed &+ e &+ constant &+ words[index]
            (e, d, c, b, a) = (d, c, rotateLeft(b, by: 30), a, next)
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
    }

    private static func rotateLeft(_ value: UInt32, by count: UInt32) -> UInt32 {
        value << count | value >> (32 - count)
    }

    private static func hex(_ word: UInt32) -> String {
        let digits = String(word, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
