import RESP

/// Where Redis Cluster keeps a key: CRC16 (XMODEM) of the key, or of its hash tag, modulo 16,384
/// (the Redis Cluster specification, "Keys distribution model"). Keys that share a tag share a
/// slot, so one script may touch them all.
package enum RedisHashSlot {
    package static let count = 16_384

    package static func of(_ key: some Collection<UInt8>) -> Int {
        let bytes = Array(key)
        return Int(crc16(hashedPart(of: bytes)) % UInt16(count))
    }

    package static func of(_ key: String) -> Int {
        of(key.utf8)
    }

    /// The slot of a command's key argument, as Redis reads it: its bytes.
    package static func of(argument key: RESPArgument) -> Int {
        switch key {
        case .bytes(let bytes): of(bytes)
        case .string(let string): of(string.utf8)
        case .integer(let value): of(String(value).utf8)
        }
    }

    /// The hash tag: the bytes between the first `{` and the first `}` after it, when there is at
    /// least one; otherwise the whole key.
    static func hashedPart(of key: [UInt8]) -> ArraySlice<UInt8> {
        guard let open = key.firstIndex(of: UInt8(ascii: "{")),
              let close = key[(open + 1)...].firstIndex(of: UInt8(ascii: "}")),
              close > open + 1
        else { return key[...] }
        return key[(open + 1)..<close]
    }

    static func crc16(_ bytes: some Sequence<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc = (crc << 8) ^ table[Int((crc >> 8) ^ UInt16(byte))]
        }
        return crc
    }

    /// CRC16 with polynomial 0x1021, no reflection, one entry per leading byte.
    private static let table: [UInt16] = (0..<256).map { index in
        var crc = UInt16(index) << 8
        for _ in 0..<8 {
            crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1
        }
        return crc
    }
}
