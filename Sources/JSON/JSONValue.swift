/// Any JSON document as a tree, read by ``JSONReader`` with the same strictness.
///
/// The service reads its few fixed shapes without building a tree; this is for small documents of
/// open shape and for checking the reader against other parsers (the tests and the fuzz target).
/// Stricter than RFC 8259 asks in one more way: an object naming a member twice is refused (readers
/// disagree about which value wins).
package enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number written without fraction or exponent that fits in `Int`.
    case integer(Int)
    /// Any other number, as the nearest `Double` (always finite: the reader refuses the others).
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Reads `bytes` as one document, whitespace around it allowed.
    package static func parse(_ bytes: [UInt8]) throws(JSONReadError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONReadError) -> JSONValue in
            var reader = JSONReader(buffer)
            let value = try read(&reader)
            try reader.expectEnd()
            return value
        }
    }

    /// Reads the value at the reader's position (nesting is bounded by ``JSONReader/maxDepth``, so
    /// the recursion is too).
    package static func read(_ reader: inout JSONReader) throws(JSONReadError) -> JSONValue {
        guard let byte = reader.peek() else { throw reader.syntaxError("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"):
            var members: [String: JSONValue] = [:]
            guard try reader.openObject() else { return .object(members) }
            repeat {
                let key = try reader.readKey()
                let name = reader.string(of: key)
                guard members[name] == nil else {
                    throw reader.syntaxError("duplicate member \(reader.label(of: key))", at: key.start - 1)
                }
                members[name] = try read(&reader)
            } while try reader.nextMember()
            return .object(members)
        case UInt8(ascii: "["):
            var elements: [JSONValue] = []
            guard try reader.openArray() else { return .array(elements) }
            repeat {
                elements.append(try read(&reader))
            } while try reader.nextElement()
            return .array(elements)
        case UInt8(ascii: "\""):
            return .string(try reader.readString())
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            return .bool(try reader.readBool())
        case UInt8(ascii: "n"):
            guard reader.readNull() else { throw reader.syntaxError("invalid literal") }
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = reader.offset
            let (value, isInteger) = try reader.readNumber()
            if isInteger {
                // Integers are read again exactly when they fit in Int.
                var exact = reader
                exact.offset = start
                if let integer = try? exact.readInt() { return .integer(integer) }
            }
            return .number(value)
        default:
            throw reader.syntaxError("unexpected character")
        }
    }
}
