import TestSupport
/// A JSON value that keeps object keys in document order, so that comparing two values also
/// compares key order (the contract fixes `{"product":…,"reviews":…,"suggested":…}`).
/// Numbers compare by their text: the service and the stub both write integers.
indirect enum JSONValue: Sendable, Equatable, CustomStringConvertible {
    case object([(key: String, value: JSONValue)])
    case array([JSONValue])
    case string(String)
    case number(String)
    case bool(Bool)
    case null

    static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case (.array(let a), .array(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        case (.null, .null): return true
        default: return false
        }
    }

    subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    subscript(index: Int) -> JSONValue? {
        guard case .array(let items) = self, items.indices.contains(index) else { return nil }
        return items[index]
    }

    /// The keys of an object in order (empty for anything else).
    var keys: [String] {
        guard case .object(let members) = self else { return [] }
        return members.map(\.key)
    }

    var array: [JSONValue]? {
        guard case .array(let items) = self else { return nil }
        return items
    }

    var string: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    var int: Int? {
        guard case .number(let text) = self else { return nil }
        return Int(text)
    }

    var description: String {
        switch self {
        case .object(let members): "{" + members.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
        case .array(let items): "[" + items.map(\.description).joined(separator: ",") + "]"
        case .string(let text): "\"\(text)\""
        case .number(let text): text
        case .bool(let value): String(value)
        case .null: "null"
        }
    }

    struct ParseError: Error, CustomStringConvertible {
        let offset: Int
        let reason: String
        var description: String { "invalid JSON at byte \(offset): \(reason)" }
    }

    /// Parses one complete JSON document (RFC 8259), whitespace around it allowed.
    static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        var parser = Parser(bytes: bytes)
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.offset == bytes.count else { throw ParseError(offset: parser.offset, reason: "trailing bytes") }
        return value
    }

    static func parse(_ text: String) throws -> JSONValue {
        try parse(Array(text.utf8))
    }

    private struct Parser {
        let bytes: [UInt8]
        var offset = 0

        mutating func skipWhitespace() {
            while offset < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) { offset += 1 }
        }

        func fail(_ reason: String) -> ParseError { ParseError(offset: offset, reason: reason) }

        mutating func expect(_ literal: String) throws {
            for byte in literal.utf8 {
                guard offset < bytes.count, bytes[offset] == byte else { throw fail("expected \(literal)") }
                offset += 1
            }
        }

        mutating func value() throws -> JSONValue {
            skipWhitespace()
            guard offset < bytes.count else { throw fail("unexpected end") }
            switch bytes[offset] {
            case UInt8(ascii: "{"): return try object()
            case UInt8(ascii: "["): return try array()
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try expect("true"); return .bool(true)
            case UInt8(ascii: "f"): try expect("false"); return .bool(false)
            case UInt8(ascii: "n"): try expect("null"); return .null
            default: return try number()
            }
        }

        mutating func object() throws -> JSONValue {
            offset += 1
            var members: [(key: String, value: JSONValue)] = []
            skipWhitespace()
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
                offset += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw fail("expected a key") }
                let key = try string()
                skipWhitespace()
                try expect(":")
                members.append((key, try value()))
                skipWhitespace()
                guard offset < bytes.count else { throw fail("unterminated object") }
                if bytes[offset] == UInt8(ascii: ",") { offset += 1; continue }
                if bytes[offset] == UInt8(ascii: "}") { offset += 1; return .object(members) }
                throw fail("expected , or }")
            }
        }

        mutating func array() throws -> JSONValue {
            offset += 1
            var items: [JSONValue] = []
            skipWhitespace()
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
                offset += 1
                return .array(items)
            }
            while true {
                items.append(try value())
                skipWhitespace()
                guard offset < bytes.count else { throw fail("unterminated array") }
                if bytes[offset] == UInt8(ascii: ",") { offset += 1; continue }
                if bytes[offset] == UInt8(ascii: "]") { offset += 1; return .array(items) }
                throw fail("expected , or ]")
            }
        }

        mutating func number() throws -> JSONValue {
            let start = offset
            while offset < bytes.count, "+-0123456789.eE".utf8.contains(bytes[offset]) { offset += 1 }
            guard offset > start else { throw fail("unexpected byte") }
            let text = String(decoding: bytes[start..<offset], as: UTF8.self)
            guard Double(text) != nil else { throw fail("bad number \(text)") }
            return .number(text)
        }

        mutating func hex4() throws -> UInt32 {
            guard offset + 4 <= bytes.count, let value = UInt32(String(decoding: bytes[offset..<offset + 4], as: UTF8.self), radix: 16)
            else { throw fail("bad \\u escape") }
            offset += 4
            return value
        }

        mutating func string() throws -> String {
            offset += 1
            var out: [UInt8] = []
            while true {
                guard offset < bytes.count else { throw fail("unterminated string") }
                let byte = bytes[offset]
                offset += 1
                switch byte {
                case UInt8(ascii: "\""):
                    guard let text = String(validating: out, as: UTF8.self) else { throw fail("invalid UTF-8") }
                    return text
                case UInt8(ascii: "\\"):
                    guard offset < bytes.count else { throw fail("unterminated escape") }
                    let escape = bytes[offset]
                    offset += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if (0xD800..<0xDC00).contains(scalar) {
                            try expect("\\u")
                            let low = try hex4()
                            guard (0xDC00..<0xE000).contains(low) else { throw fail("lone surrogate") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { throw fail("bad scalar") }
                        out.append(contentsOf: Array(String(Character(unicode)).utf8))
                    default:
                        throw fail("bad escape")
                    }
                case 0..<0x20:
                    throw fail("control character in string")
                default:
                    out.append(byte)
                }
            }
        }
    }
}

extension TestResponse {
    /// The body as an order-preserving JSON value.
    func json() throws -> JSONValue {
        try JSONValue.parse(body)
    }
}
