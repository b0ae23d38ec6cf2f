import Foundation
import PureTestSupport
import Testing
@testable import ProductDetails

/// The hand-written reader against Foundation's `JSONDecoder` on the same bytes: for every valid
/// document of a generated corpus, both must produce the same values.
@Suite("UpstreamJSON differential")
struct UpstreamJSONDifferentialTests {
    /// How a generated document is written.
    enum Style: CaseIterable, Sendable {
        /// Compact, escaping like the catalog stub (`\"`, `\\`, `\n`, `\r`, `\t`, `\u00XX`).
        case stub
        /// Random whitespace, member order, `\u` escapes (surrogate pairs outside the BMP), escaped
        /// keys and extra members holding nested values.
        case escapeHeavy
        /// Foundation's `JSONEncoder`.
        case foundation
    }

    @Test(arguments: Style.allCases)
    func reviewsMatchJSONDecoder(style: Style) throws {
        var random = SeededRandom(seed: 0x5EED_0001)
        for round in 0..<300 {
            let reviews = (0..<random.below(21)).map { _ in
                Review(id: random.text(maxLength: 12), rating: random.integer(), text: random.text(maxLength: 80))
            }
            var writer = CorpusWriter(style: style, random: random)
            let body = try writer.document(reviews)
            random = writer.random
            let expected = try JSONDecoder().decode([Review].self, from: Data(body))
            #expect(expected == reviews, "corpus writer, round \(round)")
            let decoded = try UpstreamJSON.reviews(from: body)
            #expect(decoded == expected, "round \(round)")
            // `==` on strings is canonical equivalence; the scalars themselves must match too.
            #expect(decoded.map { Array($0.text.utf8) + Array($0.id.utf8) } == expected.map { Array($0.text.utf8) + Array($0.id.utf8) })
        }
    }

    @Test(arguments: Style.allCases)
    func productsMatchJSONDecoder(style: Style) throws {
        var random = SeededRandom(seed: 0x5EED_0002)
        for round in 0..<300 {
            let products = (0..<random.below(9)).map { _ in random.product() }
            var writer = CorpusWriter(style: style, random: random)
            let listBody = try writer.document(products)
            let product = random.product()
            let productBody = try writer.document(product)
            random = writer.random
            let expectedList = try JSONDecoder().decode([Product].self, from: Data(listBody))
            #expect(try UpstreamJSON.products(from: listBody) == expectedList, "round \(round)")
            let expected = try JSONDecoder().decode(Product.self, from: Data(productBody))
            #expect(expected == product)
            #expect(try UpstreamJSON.product(from: productBody) == expected, "round \(round)")
        }
    }

    /// The catalog stub's own review texts, as the stub writes them.
    @Test func stubTrickyTextsMatchJSONDecoder() throws {
        let texts = [
            "Très bien — 👍", #"He said "best purchase ever" and meant it."#,
            #"Saved to C:\Users\me\reviews\new.txt \o/"#, "Line one\nline two\ttabbed",
            "とても良い商品です。また買います！", "Ünïcödé everywhere: naïve café, smörgåsbord, 🚀✨",
            "Bell\u{07} and escape \u{1B} characters", #"Emoji in quotes: "😀" and a backslash \ alone"#,
        ]
        let reviews = texts.enumerated().map { Review(id: "p\($0.offset)-r1", rating: $0.offset % 5 + 1, text: $0.element) }
        var writer = CorpusWriter(style: .stub, random: SeededRandom(seed: 3))
        let body = try writer.document(reviews)
        let expected = try JSONDecoder().decode([Review].self, from: Data(body))
        #expect(expected == reviews)
        #expect(try UpstreamJSON.reviews(from: body) == expected)
    }
}

/// Corpus values, drawn so that every run sees the same corpus.
extension SeededRandom {
    mutating func chance(_ percent: Int) -> Bool {
        below(100) < percent
    }

    /// Mostly small ratings and prices, sometimes negative or at the ends of `Int`.
    mutating func integer() -> Int {
        switch below(10) {
        case 0: return [Int.min, Int.max, 0, -1, Int.max - 1, Int.min + 1][below(6)]
        case 1: return Int(bitPattern: UInt(next()))
        case 2: return -below(1_000)
        default: return below(100_000)
        }
    }

    /// Text mixing ASCII, JSON-special characters, controls, Latin, CJK and astral scalars.
    mutating func text(maxLength: Int) -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<below(maxLength + 1) {
            let value: UInt32
            switch below(12) {
            case 0: value = [0x22, 0x5C, 0x2F, 0x7F][below(4)]
            case 1: value = UInt32(below(0x20))
            case 2: value = 0xA0 + UInt32(below(0x100))
            case 3: value = 0x3040 + UInt32(below(0x60))
            case 4: value = [0x2014, 0x20AC, 0xFEFF, 0xFFFD, 0xD7FF, 0xE000, 0xFFFF][below(7)]
            case 5: value = 0x1F300 + UInt32(below(0x300))
            case 6: value = [0x10000, 0x10FFFF, 0x1D11E][below(3)]
            default: value = 0x20 + UInt32(below(0x5F))
            }
            scalars.append(Unicode.Scalar(value)!)
        }
        return String(scalars)
    }

    mutating func product() -> Product {
        Product(id: text(maxLength: 10), name: text(maxLength: 40), priceInCents: integer(), currency: text(maxLength: 3))
    }
}

/// Writes the corpus in one ``UpstreamJSONDifferentialTests/Style``.
struct CorpusWriter {
    let style: UpstreamJSONDifferentialTests.Style
    var random: SeededRandom
    private var out: [UInt8] = []

    init(style: UpstreamJSONDifferentialTests.Style, random: SeededRandom) {
        self.style = style
        self.random = random
    }

    mutating func document(_ reviews: [Review]) throws -> [UInt8] {
        if style == .foundation { return Array(try JSONEncoder().encode(reviews)) }
        out = []
        array(reviews) { writer, review in
            writer.object([
                ("id", { $0.string(review.id) }),
                ("rating", { $0.int(review.rating) }),
                ("text", { $0.string(review.text) }),
            ])
        }
        return out
    }

    mutating func document(_ products: [Product]) throws -> [UInt8] {
        if style == .foundation { return Array(try JSONEncoder().encode(products)) }
        out = []
        array(products) { writer, product in writer.write(product) }
        return out
    }

    mutating func document(_ product: Product) throws -> [UInt8] {
        if style == .foundation { return Array(try JSONEncoder().encode(product)) }
        out = []
        write(product)
        space()
        return out
    }

    private mutating func write(_ product: Product) {
        object([
            ("id", { $0.string(product.id) }),
            ("name", { $0.string(product.name) }),
            ("priceInCents", { $0.int(product.priceInCents) }),
            ("currency", { $0.string(product.currency) }),
        ])
    }

    private mutating func array<T>(_ elements: [T], _ element: (inout CorpusWriter, T) -> Void) {
        space()
        out.append(UInt8(ascii: "["))
        for (index, value) in elements.enumerated() {
            if index > 0 { punctuation(",") }
            space()
            element(&self, value)
        }
        punctuation("]")
        space()
    }

    private mutating func object(_ members: [(String, (inout CorpusWriter) -> Void)]) {
        var members = members
        if style == .escapeHeavy {
            members.shuffle(using: &self)
            for _ in 0..<random.below(3) {
                let name = "extra\(random.below(1_000_000))"
                members.insert((name, { $0.nested(depth: 0) }), at: random.below(members.count + 1))
            }
        }
        out.append(UInt8(ascii: "{"))
        for (index, (name, value)) in members.enumerated() {
            if index > 0 { punctuation(",") }
            space()
            string(name)
            punctuation(":")
            space()
            value(&self)
        }
        punctuation("}")
    }

    /// An ignored value: literals, numbers, strings, and arrays or objects of those.
    private mutating func nested(depth: Int) {
        switch random.below(depth < 4 ? 8 : 5) {
        case 0: out.append(contentsOf: ["true", "false", "null"][random.below(3)].utf8)
        case 1: out.append(contentsOf: ["-0", "0.5", "-12.75e+3", "1E-9", "42", "1e300"][random.below(6)].utf8)
        case 2, 3, 4: string(random.text(maxLength: 10))
        case 5, 6:
            out.append(UInt8(ascii: "["))
            for index in 0..<random.below(4) {
                if index > 0 { punctuation(",") }
                space()
                nested(depth: depth + 1)
            }
            punctuation("]")
        default:
            object((0..<random.below(4)).map { index in ("k\(index)", { $0.nested(depth: depth + 1) }) })
        }
    }

    private mutating func int(_ value: Int) {
        out.append(contentsOf: String(value).utf8)
    }

    private mutating func string(_ text: String) {
        out.append(UInt8(ascii: "\""))
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if style == .escapeHeavy, random.chance(30) {
                escape(value)
                continue
            }
            switch value {
            case 0x22: out.append(contentsOf: #"\""#.utf8)
            case 0x5C: out.append(contentsOf: #"\\"#.utf8)
            case 0x0A: out.append(contentsOf: #"\n"#.utf8)
            case 0x0D: out.append(contentsOf: #"\r"#.utf8)
            case 0x09: out.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20: hex(value)
            default: out.append(contentsOf: String(scalar).utf8)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Any scalar as an escape: a short one where JSON has it, else `\u` (a pair outside the BMP).
    private mutating func escape(_ value: UInt32) {
        let short: [UInt32: String] = [0x22: "\"", 0x5C: "\\", 0x2F: "/", 0x08: "b", 0x0C: "f", 0x0A: "n", 0x0D: "r", 0x09: "t"]
        if let letter = short[value], random.chance(50) {
            out.append(contentsOf: ("\\" + letter).utf8)
        } else if value >= 0x10000 {
            hex(0xD800 + ((value - 0x10000) >> 10))
            hex(0xDC00 + ((value - 0x10000) & 0x3FF))
        } else {
            hex(value)
        }
    }

    private mutating func hex(_ unit: UInt32) {
        var digits = String(unit, radix: 16, uppercase: random.chance(50))
        digits = String(repeating: "0", count: 4 - digits.count) + digits
        out.append(contentsOf: ("\\u" + digits).utf8)
    }

    private mutating func punctuation(_ mark: Unicode.Scalar) {
        space()
        out.append(UInt8(mark.value))
    }

    private mutating func space() {
        guard style == .escapeHeavy, random.chance(30) else { return }
        for _ in 0..<(1 + random.below(3)) {
            out.append([0x20, 0x09, 0x0A, 0x0D][random.below(4)])
        }
    }
}

extension CorpusWriter: RandomNumberGenerator {
    mutating func next() -> UInt64 {
        random.next()
    }
}
