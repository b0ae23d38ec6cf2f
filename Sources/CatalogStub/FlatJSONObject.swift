/// A JSON object whose values are numbers, booleans or null, read strictly: exactly what the
/// stub's control route accepts. Hand-written so the stub (linked into the service for demo
/// mode) does not pull Foundation, and its 8 MB of libraries, into the service's memory.
struct FlatJSONObject {
    enum Value: Equatable {
        case number(Double, isInteger: Bool)
        case bool(Bool)
        case null
    }

    /// Keys and values in document order.
    private(set) var members: [(key: String, value: Value)] = []

    struct Malformed: Error {}

    init(_ bytes: [UInt8]) throws(Malformed) {
        var reader = Reader(bytes: bytes)
        reader.skipWhitespace()
        try reader.expect(UInt8(ascii: "{"))
        reader.skipWhitespace()
        if reader.peek == UInt8(ascii: "}") {
            reader.index += 1
        } else {
            while true {
                reader.skipWhitespace()
                let key = try reader.string()
                guard !members.contains(where: { $0.key == key }) else { throw Malformed() }
                reader.skipWhitespace()
                try reader.expect(UInt8(ascii: ":"))
                reader.skipWhitespace()
                members.append((key, try reader.value()))
                reader.skipWhitespace()
                if reader.peek == UInt8(ascii: ",") {
                    reader.index += 1
                    continue
                }
                try reader.expect(UInt8(ascii: "}"))
                break
            }
        }
        reader.skipWhitespace()
        guard reader.index == bytes.count else { throw Malformed() }
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
        }

        mutating func expect(_ byte: UInt8) throws(Malformed) {
            guard peek == byte else { throw Malformed() }
            index += 1
        }

        /// Keys are plain ASCII names: no escapes are needed, so none are accepted.
        mutating func string() throws(Malformed) -> String {
            try expect(UInt8(ascii: "\""))
            let start = index
            while let byte = peek, byte != UInt8(ascii: "\"") {
                guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { throw Malformed() }
                index += 1
            }
            let key = String(decoding: bytes[start..<index], as: UTF8.self)
            try expect(UInt8(ascii: "\""))
            return key
        }

        mutating func value() throws(Malformed) -> Value {
            for (word, value) in [("true", Value.bool(true)), ("false", .bool(false)), ("null", .null)] {
                let literal = Array(word.utf8)
                if bytes[index...].starts(with: literal) {
                    index += literal.count
                    return value
                }
            }
            return try number()
        }

        /// RFC 8259 numbers: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
        mutating func number() throws(Malformed) -> Value {
            let start = index
            var isInteger = true
            if peek == UInt8(ascii: "-") { index += 1 }
            guard let first = peek, isDigit(first) else { throw Malformed() }
            index += 1
            if first != UInt8(ascii: "0") { skipDigits() }
            if peek == UInt8(ascii: ".") {
                isInteger = false
                index += 1
                guard try digits() else { throw Malformed() }
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                isInteger = false
                index += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
                guard try digits() else { throw Malformed() }
            }
            guard let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)) else { throw Malformed() }
            return .number(value, isInteger: isInteger)
        }

        private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        private mutating func skipDigits() {
            while let byte = peek, isDigit(byte) { index += 1 }
        }

        private mutating func digits() throws(Malformed) -> Bool {
            let start = index
            skipDigits()
            return index > start
        }
    }
}
