/// Finds where a run of string bytes that JSON takes as they are ends, eight bytes per step.
///
/// Inside a string, only `"`, `\` and control bytes (below 0x20) need a second look; the reader
/// also stops at non-ASCII bytes to validate their UTF-8. Text is nearly all such runs, and a
/// byte-at-a-time test was the largest part of reading and writing an upstream answer's JSON.
@usableFromInline
package enum JSONPlainRun {
    @inlinable
    static var ones: UInt64 { 0x0101_0101_0101_0101 }
    @inlinable
    static var highBits: UInt64 { 0x8080_8080_8080_8080 }

    /// The index of the first byte at or after `start` that is `"`, `\`, below 0x20 or (unless
    /// `allowingNonASCII`) above 0x7F; `bytes.count` when there is none.
    @inlinable @inline(__always)
    package static func end(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, allowingNonASCII: Bool) -> Int {
        var index = start
        let count = bytes.count
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while index &+ 8 <= count {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                if stopsIn(word, allowingNonASCII: allowingNonASCII) { break }
                index &+= 8
            }
        }
        while index < count, !stops(bytes[index], allowingNonASCII: allowingNonASCII) { index &+= 1 }
        return index
    }

    /// Whether any byte of `word` would stop a run. Borrows can mark bytes after a true stop,
    /// never a word without one: the caller finds the exact byte one at a time.
    @inlinable @inline(__always)
    static func stopsIn(_ word: UInt64, allowingNonASCII: Bool) -> Bool {
        let control = (word &- ones &* 0x20) & ~word
        let quote = hasZeroByte(word ^ (ones &* UInt64(UInt8(ascii: "\""))))
        let backslash = hasZeroByte(word ^ (ones &* UInt64(UInt8(ascii: "\\"))))
        let nonASCII = allowingNonASCII ? 0 : word
        return (control | quote | backslash | nonASCII) & highBits != 0
    }

    @inlinable @inline(__always)
    static func hasZeroByte(_ word: UInt64) -> UInt64 {
        (word &- ones) & ~word
    }

    @inlinable @inline(__always)
    static func stops(_ byte: UInt8, allowingNonASCII: Bool) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || (!allowingNonASCII && byte > 0x7F)
    }
}
