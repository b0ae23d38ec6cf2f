import Testing
import JSON

struct JSONPlainRunTests {
    /// A byte-at-a-time reference for what ends a run.
    private func referenceEnd(_ bytes: [UInt8], from start: Int, allowingNonASCII: Bool) -> Int {
        bytes[start...].firstIndex { byte in
            byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || (!allowingNonASCII && byte > 0x7F)
        } ?? bytes.count
    }

    /// Every byte value at every offset of the first 19 bytes of a 20-byte buffer (two words and
    /// a tail), among plain bytes that sit next to the stop classes (space, DEL, `#`, `[`, `]`,
    /// `~`, `!`), with a quote as the last byte.
    @Test(arguments: [false, true])
    func everyByteValueAtEveryOffsetEndsTheRunWhereAByteScanWould(allowingNonASCII: Bool) {
        let fillers: [UInt8] = [0x20, 0x7F, 0x23, 0x5B, 0x5D, 0x7E, 0x21, 0x61]
        for value in 0...255 {
            for offset in 0..<19 {
                var bytes = (0..<20).map { fillers[$0 % fillers.count] }
                bytes[offset] = UInt8(value)
                // A second stop later on must not hide the first.
                bytes[19] = UInt8(ascii: "\"")
                for start in [0, 1, offset] {
                    let found = bytes.withUnsafeBufferPointer {
                        JSONPlainRun.end(in: $0, from: start, allowingNonASCII: allowingNonASCII)
                    }
                    #expect(found == referenceEnd(bytes, from: start, allowingNonASCII: allowingNonASCII),
                            "byte \(value) at \(offset), from \(start)")
                }
            }
        }
    }

    @Test func aBufferWithoutStopsRunsToItsEnd() {
        let text = Array("Plain text of any length, 0-9 and ~!#$%&'()*+,-./:;<=>?@[]^_`{|}".utf8)
        for length in 0...text.count {
            let found = text.withUnsafeBufferPointer { whole in
                JSONPlainRun.end(in: UnsafeBufferPointer(rebasing: whole[0..<length]), from: 0, allowingNonASCII: false)
            }
            #expect(found == length)
        }
    }
}
