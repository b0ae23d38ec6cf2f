import Testing
import JSON
@testable import ProductDetails

/// Strict RFC 8259 reading of the upstream bodies: what is refused, what tricky input is accepted,
/// and what the failure messages say.
@Suite("UpstreamJSON strictness")
struct UpstreamJSONStrictnessTests {
    enum Shape: Sendable {
        case product, reviews, products
    }

    struct Malformed: Sendable, CustomTestStringConvertible {
        let label: String
        let body: [UInt8]
        let shape: Shape
        var testDescription: String { label }

        init(_ label: String, _ body: String, _ shape: Shape = .reviews) {
            self.init(label, Array(body.utf8), shape)
        }

        init(_ label: String, _ body: [UInt8], _ shape: Shape = .reviews) {
            self.label = label
            self.body = body
            self.shape = shape
        }

        /// A one-review array whose `text` value is `{"…"}` with `content` (raw bytes) inside.
        static func text(_ label: String, _ content: [UInt8]) -> Malformed {
            Malformed(label, Array(#"[{"id":"r1","rating":4,"text":""#.utf8) + content + Array(#""}]"#.utf8))
        }

        /// A one-review array with `rating` written as `number`.
        static func rating(_ label: String, _ number: String) -> Malformed {
            Malformed(label, #"[{"id":"r1","rating":\#(number),"text":"ok"}]"#)
        }

        /// A valid review with one more member, `"x":` followed by `value`.
        static func extra(_ label: String, _ value: String) -> Malformed {
            Malformed(label, #"[{"id":"r1","x":\#(value),"rating":4,"text":"ok"}]"#)
        }
    }

    static let malformed: [Malformed] = [
        // Document level.
        Malformed("empty body", ""),
        Malformed("whitespace only", " \n\t "),
        Malformed("trailing garbage", #"[{"id":"r1","rating":4,"text":"ok"}] x"#),
        Malformed("two documents", "[] []"),
        Malformed("byte-order mark", [0xEF, 0xBB, 0xBF] + Array("[]".utf8)),
        Malformed("unterminated array", "["),
        Malformed("unterminated object", #"[{"id":"r1""#),
        Malformed("mismatched brackets", "[}"),
        Malformed("line comment", "// reviews\n[]"),
        Malformed("block comment", "[/* none */]"),
        // Structure.
        Malformed("trailing comma in array", #"[{"id":"r1","rating":4,"text":"ok"},]"#),
        Malformed("trailing comma in object", #"[{"id":"r1","rating":4,"text":"ok",}]"#),
        Malformed("leading comma in array", #"[,{"id":"r1","rating":4,"text":"ok"}]"#),
        Malformed("missing comma between members", #"[{"id":"r1" "rating":4,"text":"ok"}]"#),
        Malformed("missing colon", #"[{"id" "r1","rating":4,"text":"ok"}]"#),
        Malformed("unquoted key", #"[{id:"r1","rating":4,"text":"ok"}]"#),
        Malformed("single-quoted key", #"[{'id':"r1","rating":4,"text":"ok"}]"#),
        Malformed("single-quoted string", #"[{"id":'r1',"rating":4,"text":"ok"}]"#),
        // Numbers.
        .rating("leading zero", "04"),
        .rating("negative leading zero", "-04"),
        .rating("plus sign", "+4"),
        .rating("bare fraction", ".5"),
        .rating("dangling decimal point", "4."),
        .rating("bare minus", "-"),
        .rating("NaN", "NaN"),
        .rating("Infinity", "Infinity"),
        .rating("minus Infinity", "-Infinity"),
        .rating("hex number", "0x4"),
        .rating("fraction for an integer", "4.0"),
        .rating("exponent for an integer", "1e3"),
        .rating("signed exponent for an integer", "4E+0"),
        .rating("above Int.max", "9223372036854775808"),
        .rating("below Int.min", "-9223372036854775809"),
        .rating("far out of range", "123456789012345678901234567890"),
        // Strings.
        Malformed("unterminated string", #"[{"id":"r1"#),
        .text("raw line feed", Array("a\nb".utf8)),
        .text("raw tab", Array("a\tb".utf8)),
        .text("raw NUL", [0x61, 0x00, 0x62]),
        .text("invalid escape", Array(#"\x41"#.utf8)),
        .text("escaped single quote", Array(#"\'"#.utf8)),
        .text("short unicode escape", Array(#"\u12"#.utf8)),
        .text("non-hex unicode escape", Array(#"\uZZZZ"#.utf8)),
        .text("lone high surrogate", Array(#"\ud83d"#.utf8)),
        .text("high surrogate then letter", Array(#"\ud83dx"#.utf8)),
        .text("high surrogate then non-surrogate escape", Array(#"\ud83d\u0041"#.utf8)),
        .text("two high surrogates", Array(#"\ud83d\ud83d"#.utf8)),
        .text("lone low surrogate", Array(#"\udc4d"#.utf8)),
        .text("reversed surrogate pair", Array(#"\udc4d\ud83d"#.utf8)),
        // UTF-8.
        .text("invalid byte 0xFF", [0x61, 0xFF]),
        .text("stray continuation byte", [0x80]),
        .text("overlong slash", [0xC0, 0xAF]),
        .text("overlong three-byte", [0xE0, 0x80, 0xAF]),
        .text("encoded surrogate", [0xED, 0xA0, 0x80]),
        .text("above U+10FFFF", [0xF4, 0x90, 0x80, 0x80]),
        .text("truncated sequence", [0xE2, 0x82]),
        .text("lead byte then ASCII", [0xC3, 0x41]),
        Malformed("invalid UTF-8 in a key", [0x5B, 0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D, 0x5D]),
        Malformed("UTF-8 outside any string", "[é]"),
        // Shapes and types.
        Malformed("missing field", #"[{"id":"r1","rating":4}]"#),
        Malformed("null for a required field", #"[{"id":null,"rating":4,"text":"ok"}]"#),
        Malformed("string for an integer", #"[{"id":"r1","rating":"4","text":"ok"}]"#),
        Malformed("boolean for an integer", #"[{"id":"r1","rating":true,"text":"ok"}]"#),
        Malformed("number for a string", #"[{"id":1,"rating":4,"text":"ok"}]"#),
        Malformed("array for a string", #"[{"id":["r1"],"rating":4,"text":"ok"}]"#),
        Malformed("duplicate key", #"[{"id":"r1","id":"r2","rating":4,"text":"ok"}]"#),
        Malformed("duplicate key, one escaped", #"[{"id":"r1","\u0069d":"r2","rating":4,"text":"ok"}]"#),
        Malformed("duplicate unknown key", #"[{"x":1,"id":"r1","x":2,"rating":4,"text":"ok"}]"#),
        Malformed("number element", "[1]"),
        Malformed("object instead of array", #"{"id":"r1","rating":4,"text":"ok"}"#),
        Malformed("null document", "null"),
        // Ignored members are still validated.
        .extra("invalid literal", "nul"),
        .extra("capitalised literal", "True"),
        .extra("bad number", "01"),
        .extra("bad exponent", "1e"),
        .extra("fraction without digits", "1.e5"),
        .extra("mismatched nested brackets", "[1}"),
        .extra("trailing comma nested", "[1,]"),
        .extra("bad escape nested", #"{"k":"\q"}"#),
        .extra("unquoted nested key", "{k:1}"),
        // Products.
        Malformed("fractional price", #"{"id":"p1","name":"Mug","priceInCents":12.5,"currency":"EUR"}"#, .product),
        Malformed("exponent price", #"{"id":"p1","name":"Mug","priceInCents":1e3,"currency":"EUR"}"#, .product),
        Malformed("missing currency", #"{"id":"p1","name":"Mug","priceInCents":1}"#, .product),
        Malformed("array for a product", #"[{"id":"p1","name":"Mug","priceInCents":1,"currency":"EUR"}]"#, .product),
        Malformed("object for a product list", #"{"id":"p1","name":"Mug","priceInCents":1,"currency":"EUR"}"#, .products),
        Malformed("trailing comma in product list", #"[{"id":"p1","name":"Mug","priceInCents":1,"currency":"EUR"},]"#, .products),
    ]

    @Test(arguments: malformed)
    func malformedBodiesAreRefused(_ input: Malformed) {
        let message = Self.failureMessage(input.body, input.shape)
        #expect(message != nil, "accepted")
        #expect(message.map { !$0.isEmpty } ?? true)
    }

    @Test func thereAreEnoughMalformedCases() {
        #expect(Self.malformed.count >= 30)
    }

    // MARK: Tricky valid input

    struct Valid: Sendable, CustomTestStringConvertible {
        let label: String
        let body: String
        let expected: [Review]
        var testDescription: String { label }

        init(_ label: String, _ body: String, _ expected: [Review]) {
            self.label = label
            self.body = body
            self.expected = expected
        }

        init(_ label: String, text: String, _ expected: String) {
            self.init(label, #"[{"id":"r1","rating":4,"text":"\#(text)"}]"#, [Review(id: "r1", rating: 4, text: expected)])
        }

        init(_ label: String, rating: String, _ expected: Int) {
            self.init(label, #"[{"id":"r1","rating":\#(rating),"text":"ok"}]"#, [Review(id: "r1", rating: expected, text: "ok")])
        }
    }

    static let ok = [Review(id: "r1", rating: 4, text: "ok")]

    static let valid: [Valid] = [
        Valid("empty array", "[]", []),
        Valid("empty array with whitespace", " \r\n\t[ \n ] \n", []),
        Valid("escaped keys", #"[{"\u0069d":"r1","r\u0061ting":4,"te\u0078\u0074":"ok"}]"#, ok),
        Valid("whitespace everywhere", " \n[ \t{ \r\n\"id\" :\t\"r1\" , \"rating\"\n:\n4 ,\"text\" : \"ok\" \n} \t] \r\n", ok),
        Valid("members in another order", #"[{"text":"ok","rating":4,"id":"r1"}]"#, ok),
        Valid(
            "extra keys holding nested values",
            #"[{"meta":{"a":[1,-2.5e+3,{"b":[[],{}]}],"c":null},"id":"r1","tags":["]","}",""],"rating":4,"#
                + #""flags":[true,false,null],"text":"ok","n":0.0,"e":1E-7,"":"empty key","s":"\"\\"}]"#,
            ok
        ),
        Valid(
            "two reviews",
            #"[{"id":"a","rating":1,"text":"x"},{"id":"b","rating":5,"text":"y"}]"#,
            [Review(id: "a", rating: 1, text: "x"), Review(id: "b", rating: 5, text: "y")]
        ),
        Valid(text: #"\u00e9"#, "é", label: "latin escape"),
        Valid(text: #"\ud83d\udc4d"#, "👍", label: "surrogate pair"),
        Valid(text: #"\uD83D\uDC4D"#, "👍", label: "upper-case surrogate pair"),
        Valid(text: #"\u20AC\u0000\u001f"#, "€\u{0}\u{1F}", label: "BMP and control escapes"),
        Valid(text: #"\"\\\/\b\f\n\r\t"#, "\"\\/\u{08}\u{0C}\n\r\t", label: "short escapes"),
        Valid(text: "Très bien — 👍", "Très bien — 👍", label: "raw UTF-8"),
        Valid(text: "とても良い\u{7F}", "とても良い\u{7F}", label: "raw CJK and DEL"),
        Valid(text: #"a\u0041\nb"#, "aA\nb", label: "escapes between raw text"),
        Valid(text: "", "", label: "empty string"),
        Valid("negative integer", rating: "-3", -3),
        Valid("negative zero", rating: "-0", 0),
        Valid("zero", rating: "0", 0),
        Valid("Int.max", rating: "9223372036854775807", Int.max),
        Valid("Int.min", rating: "-9223372036854775808", Int.min),
        Valid(
            "nesting at the limit in an ignored member",
            #"[{"x":"# + String(repeating: "[", count: JSONReader.maxDepth - 2)
                + String(repeating: "]", count: JSONReader.maxDepth - 2) + #","id":"r1","rating":4,"text":"ok"}]"#,
            ok
        ),
    ]

    @Test(arguments: valid)
    func trickyValidBodiesAreAccepted(_ input: Valid) throws {
        #expect(try UpstreamJSON.reviews(from: Array(input.body.utf8)) == input.expected)
    }

    @Test func trickyValidProductIsAccepted() throws {
        let body = #" { "currency" : "\u20ac" , "priceInCents" : -0 , "x" : { "id" : 1 } , "name" : "L\u00e4mp \ud83d\udca1" , "\u0069d" : "p1" } "#
        let product = try UpstreamJSON.product(from: Array(body.utf8))
        #expect(product == Product(id: "p1", name: "Lämp 💡", priceInCents: 0, currency: "€"))
        #expect(try UpstreamJSON.products(from: Array("[]".utf8)).isEmpty)
    }

    /// RFC 8259 names are code points: U+00C5 and U+212B are two names, not a duplicate.
    @Test func canonicallyEquivalentUnknownKeysAreTwoNames() throws {
        let body = #"[{"\u00c5":1,"\u212b":2,"id":"r1","rating":4,"text":"ok"}]"#
        #expect(try UpstreamJSON.reviews(from: Array(body.utf8)) == [Review(id: "r1", rating: 4, text: "ok")])
    }

    /// Each unknown member is checked against the others once, not against every one before it:
    /// a body of many members must not hold its event loop for minutes (300,000 took about two
    /// minutes when each was compared with all before it; the limit is far above linear time).
    @Test(.timeLimit(.minutes(1)))
    func manyUnknownMembersAreReadInLinearTime() throws {
        var body = #"{"id":"p1","name":"n","priceInCents":1,"currency":"EUR""#
        for index in 0..<300_000 { body += #","k\#(index)":0"# }
        body += "}"
        #expect(try UpstreamJSON.product(from: Array(body.utf8)).id == "p1")
    }

    // MARK: Nesting

    @Test(arguments: ["[", "{\"a\":"])
    func deepNestingInAnIgnoredMemberIsRefused(opener: String) {
        let body = #"[{"id":"r1","x":"# + String(repeating: opener, count: 10_000)
        let message = Self.failureMessage(Array(body.utf8), .reviews)
        #expect(message?.contains("nesting deeper than 64") == true)
    }

    /// Only ignored members are walked generically; elsewhere the first unexpected bracket is
    /// already a wrong type, long before any depth matters.
    @Test func deepNestingWhereAnObjectBelongsIsRefused() {
        let message = Self.failureMessage(Array(String(repeating: "[", count: 10_000).utf8), .products)
        #expect(message == "wrong type at 0")
    }

    @Test func oneLevelPastTheLimitIsRefused() {
        let depth = JSONReader.maxDepth - 1
        let body = #"[{"x":"# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            + #","id":"r1","rating":4,"text":"ok"}]"#
        #expect(Self.failureMessage(Array(body.utf8), .reviews)?.contains("nesting") == true)
    }

    // MARK: Messages

    @Test(arguments: [
        (#"[{"id":null,"rating":4,"text":"ok"}]"#, "null at 0.id"),
        (#"[{"id":"a","rating":1,"text":"x"},{"id":"r1","rating":4}]"#, "missing field text in 1"),
        (#"[{"id":"r1","rating":[4],"text":"ok"}]"#, "wrong type at 0.rating"),
        (#"[{"id":"r1","rating":4,"rating":5,"text":"ok"}]"#, "duplicate field rating in 0 (offset 23)"),
        (#"[{"id":"r1","rating":4.5,"text":"ok"}]"#, "number at 0.rating is not an integer (offset 21)"),
        (#"[{"id":"r1","rating":99999999999999999999,"text":"ok"}]"#, "integer out of range at 0.rating (offset 21)"),
        (#"[{"id":"r1","rating":4,"text":"a\qb"}]"#, "invalid JSON at 0.text (offset 32): invalid escape in string"),
        (#"[{"id":"r1","rating":4,"text":"ok"},]"#, "invalid JSON at body (offset 36): trailing comma in array"),
        (#"[{"id":"r1","x":[1,],"rating":4,"text":"ok"}]"#, "invalid JSON at 0.x (offset 19): trailing comma in array"),
        (#"[] x"#, "invalid JSON at body (offset 3): unexpected data after the document"),
        ("", "invalid JSON at body (offset 0): unexpected end of input"),
    ])
    func reviewMessagesNameTheFieldAndOffset(body: String, message: String) {
        #expect(Self.failureMessage(Array(body.utf8), .reviews) == message)
    }

    @Test func productMessagesNameTheField() {
        #expect(Self.failureMessage(Array(#"{"id":"p1","name":"Mug","currency":"EUR"}"#.utf8), .product) == "missing field priceInCents")
        #expect(Self.failureMessage(Array(#"{"id":"p1","name":"Mug","priceInCents":"5","currency":"EUR"}"#.utf8), .product) == "wrong type at priceInCents")
        #expect(Self.failureMessage(Array("[]".utf8), .product) == "wrong type at body")
        #expect(Self.failureMessage(Array(#"[{"id":"p1"}]"#.utf8), .products) == "missing field name in 0")
    }

    @Test func aLongUnknownKeyIsNotEchoed() {
        let key = String(repeating: "k", count: 500)
        let body = #"[{"\#(key)":[1,],"id":"r1","rating":4,"text":"ok"}]"#
        let message = Self.failureMessage(Array(body.utf8), .reviews)
        #expect(message?.contains("a key of 500 bytes") == true)
        #expect(message?.contains(key) == false)
    }

    /// The `malformedBody` message for `body` read as `shape`, or nil if it was accepted.
    static func failureMessage(_ body: [UInt8], _ shape: Shape) -> String? {
        do {
            switch shape {
            case .product: _ = try UpstreamJSON.product(from: body)
            case .reviews: _ = try UpstreamJSON.reviews(from: body)
            case .products: _ = try UpstreamJSON.products(from: body)
            }
            return nil
        } catch {
            guard case .malformedBody(let message) = error else { return "unexpected \(error)" }
            return message
        }
    }
}

extension UpstreamJSONStrictnessTests.Valid {
    init(text: String, _ expected: String, label: String) {
        self.init(label, text: text, expected)
    }
}
