/// Byte-level helpers shared by the two serializers.
enum HeadWriter {
    static func appendFields(_ headers: HTTPHeaders, into buffer: inout [UInt8], terminated: Bool = true) {
        for (name, value) in headers {
            appendField(name, value, into: &buffer)
        }
        guard terminated else { return }
        buffer.append(ASCII.cr)
        buffer.append(ASCII.lf)
    }

    /// "name: value\r\n", both sanitized.
    static func appendField(_ name: String, _ value: String, into buffer: inout [UInt8]) {
        appendSanitized(name, into: &buffer)
        buffer.append(ASCII.colon)
        buffer.append(ASCII.space)
        appendSanitized(value, into: &buffer)
        buffer.append(ASCII.cr)
        buffer.append(ASCII.lf)
    }

    /// Copies `text` in one go when it holds no CR, LF or NUL (the usual case), byte by byte
    /// with those replaced otherwise.
    static func appendSanitized(_ text: String, into buffer: inout [UInt8]) {
        let utf8 = text.utf8
        let clean = utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            for byte in bytes where byte == ASCII.cr || byte == ASCII.lf || byte == 0 { return false }
            buffer.append(contentsOf: bytes)
            return true
        }
        if clean == true { return }
        for byte in utf8 {
            buffer.append(sanitized(byte))
        }
    }

    @inline(__always)
    static func sanitized(_ byte: UInt8) -> UInt8 {
        byte == ASCII.cr || byte == ASCII.lf || byte == 0 ? ASCII.space : byte
    }

    /// Three digits for the usual 100–999 range, plain decimal otherwise.
    static func appendStatusCode(_ code: Int, into buffer: inout [UInt8]) {
        guard (100...999).contains(code) else {
            buffer.append(contentsOf: String(code).utf8)
            return
        }
        buffer.append(UInt8(ascii: "0") + UInt8(code / 100))
        buffer.append(UInt8(ascii: "0") + UInt8(code / 10 % 10))
        buffer.append(UInt8(ascii: "0") + UInt8(code % 10))
    }
}
