import JSON
import Testing

/// What the reader refuses and what tricky input it accepts, read as trees (``JSONValue``).
@Suite("JSON reader strictness")
struct JSONReaderStrictnessTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let label: String
        let body: [UInt8]
        var testDescription: String { label }

        init(_ label: String, _ body: String) {
            self.init(label, Array(body.utf8))
        }

        init(_ label: String, _ body: [UInt8]) {
            self.label = label
            self.body = body
        }
    }

    static let refused: [Case] = [
        Case("empty", ""), Case("only whitespace", " \n"), Case("trailing comma in array", "[1,]"),
        Case("trailing comma in object", #"{"a":1,}"#), Case("comment", "[1 /* c */]"),
        Case("single quotes", "['a']"), Case("unquoted key", "{a:1}"), Case("leading zero", "[01]"),
        Case("plus sign", "[+1]"), Case("bare fraction", "[.5]"), Case("dot without digits", "[1.]"),
        Case("exponent without digits", "[1e]"), Case("NaN", "[NaN]"), Case("Infinity", "[Infinity]"),
        Case("number beyond Double", "[1e400]"), Case("negative beyond Double", "[-1e400]"),
        Case("long number beyond Double", "[1" + String(repeating: "0", count: 309) + "]"),
        Case("unescaped control character", "[\"a\u{01}\"]"), Case("invalid escape", #"["\x"]"#),
        Case("short \\u escape", #"["\u12"]"#), Case("unpaired high surrogate", #"["\ud800"]"#),
        Case("unpaired low surrogate", #"["\udc00"]"#), Case("high surrogate then letter", #"["\ud800\u0041"]"#),
        Case("overlong UTF-8", [0x22, 0xC0, 0x80, 0x22]), Case("encoded surrogate", [0x22, 0xED, 0xA0, 0x80, 0x22]),
        Case("above U+10FFFF", [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22]), Case("stray continuation byte", [0x22, 0x80, 0x22]),
        Case("truncated sequence", [0x22, 0xE2, 0x82, 0x22]), Case("byte-order mark", [0xEF, 0xBB, 0xBF] + Array("[1]".utf8)),
        Case("two documents", "[1] [2]"), Case("unterminated string", #"["abc"#), Case("unterminated array", "[1,2"),
        Case("duplicate member", #"{"a":1,"a":2}"#), Case("duplicate by escape", #"{"a":1,"\u0061":2}"#),
        Case("truncated literal", "[tru]"), Case("capital literal", "[True]"), Case("missing colon", #"{"a" 1}"#),
        Case("too deep", String(repeating: "[", count: JSONReader.maxDepth + 1) + String(repeating: "]", count: JSONReader.maxDepth + 1)),
    ]

    @Test(arguments: refused)
    func refuses(_ malformed: Case) {
        #expect(throws: JSONReadError.self) { try JSONValue.parse(malformed.body) }
        // Foundation refuses none that ours accepts; some of these it accepts (see FoundationJSON.swift).
    }

    @Test func acceptsTrickyDocuments() throws {
        let deep = String(repeating: "[", count: JSONReader.maxDepth) + String(repeating: "]", count: JSONReader.maxDepth)
        #expect(throws: Never.self) { try JSONValue.parse(Array(deep.utf8)) }
        #expect(try JSONValue.parse(Array(#" {"a" : [ 1 , -0 , 2.5e1 , true , false , null ] } "#.utf8))
            == .object(["a": .array([.integer(1), .integer(0), .number(25), .bool(true), .bool(false), .null])]))
        #expect(try JSONValue.parse(Array(#""\ud83d\ude00 \u00e9\/\b\f\n\r\t\"\\""#.utf8)) == .string("😀 é/\u{08}\u{0C}\n\r\t\"\\"))
        #expect(try JSONValue.parse(Array("\"\u{7F}\u{10FFFF}\"".utf8)) == .string("\u{7F}\u{10FFFF}"))
        // A U+FEFF inside a string is text, not a byte-order mark (Foundation drops it: fuzzing found).
        let feff = try JSONValue.parse(Array("[\"\u{FEFF}a\", \"\\\\\u{FEFF}b\"]".utf8))
        #expect(feff == .array([.string("\u{FEFF}a"), .string("\\\u{FEFF}b")]))
        #expect(try JSONValue.parse(Array("9223372036854775807".utf8)) == .integer(Int.max))
        #expect(try JSONValue.parse(Array("-9223372036854775808".utf8)) == .integer(Int.min))
        #expect(try JSONValue.parse(Array("9223372036854775808".utf8)) == .number(9_223_372_036_854_775_808))
        #expect(try JSONValue.parse(Array("1e-400".utf8)) == .number(0))
        #expect(try JSONValue.parse(Array("1.7976931348623157e308".utf8)) == .number(.greatestFiniteMagnitude))
    }

    @Test func messagesNameTheOffsetAndNeverTheBody() {
        #expect(throws: JSONReadError("invalid JSON at body (offset 3): trailing comma in array")) {
            try JSONValue.parse(Array("[1,]".utf8))
        }
        #expect(throws: JSONReadError("invalid JSON at body (offset 1): number out of range")) {
            try JSONValue.parse(Array("[1e999]".utf8))
        }
    }

    /// Names are compared as code points: an escape may spell a name (`\u0069d` is `id`), but a
    /// canonically equivalent one (the Kelvin sign for `K`) is another name.
    @Test func keysMatchByCodePointsNotCanonicalEquivalence() throws {
        let body = Array(#"{"\u0069d":1,"\u212A":2,"K":3}"#.utf8)
        let matches = try body.withUnsafeBufferPointer { (buffer) throws(JSONReadError) -> [Bool] in
            var reader = JSONReader(buffer)
            var matches: [Bool] = []
            _ = try reader.openObject()
            repeat {
                let key = try reader.readKey()
                matches.append(reader.key(key, is: "id") || reader.key(key, is: "K"))
                try reader.skipValue()
            } while try reader.nextMember()
            return matches
        }
        #expect(matches == [true, false, true])
    }

    @Test func readsNumbersBoolsAndNullsOneByOne() throws {
        let body = Array(#"[12, 1.5, -2e2, true, false, null, "x"]"#.utf8)
        let values = try body.withUnsafeBufferPointer { (buffer) throws(JSONReadError) -> [String] in
            var reader = JSONReader(buffer)
            var values: [String] = []
            _ = try reader.openArray()
            for _ in 0..<3 {
                let (value, isInteger) = try reader.readNumber()
                values.append("\(value) \(isInteger)")
                _ = try reader.nextElement()
            }
            for _ in 0..<2 {
                let flag = try reader.readBool()
                values.append("\(flag)")
                _ = try reader.nextElement()
            }
            let null = reader.readNull()
            let more = try reader.nextElement()
            values.append("\(null) \(more) \(reader.readNull())")
            do throws(JSONReadError) {
                _ = try reader.readBool()
            } catch {
                values.append(error.message)
            }
            values.append(try reader.readString())
            let last = try reader.nextElement()
            values.append("\(last)")
            try reader.expectEnd()
            return values
        }
        #expect(values == ["12.0 true", "1.5 false", "-200.0 false", "true", "false", "true true false", "wrong type at body", "x", "false"])
    }
}
