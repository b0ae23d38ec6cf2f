import HTTP1
import Testing

@Suite("FieldBlock")
struct FieldBlockTests {
    static func text(_ block: FieldBlock) -> String { String(decoding: block.bytes, as: UTF8.self) }

    @Test func writesFieldsInWireForm() {
        var block = FieldBlock()
        block.add("Content-Type", "application/json")
        block.add("ETag", String("\"abc\""))
        block.add("Age", decimal: 42)
        block.field("Cache-Status") {
            $0.append("product-details; ttl=")
            $0.appendDecimal(-3)
        }
        #expect(Self.text(block) == "Content-Type: application/json\r\nETag: \"abc\"\r\nAge: 42\r\nCache-Status: product-details; ttl=-3\r\n")
    }

    @Test(arguments: [(0, "0"), (7, "7"), (10, "10"), (-1, "-1"), (Int.max, "9223372036854775807"), (Int.min, "-9223372036854775808")])
    func decimals(_ value: Int, _ expected: String) {
        var block = FieldBlock()
        block.add("N", decimal: value)
        #expect(Self.text(block) == "N: \(expected)\r\n")
    }

    /// A value can never start a line of its own (response splitting): CR, LF and NUL become SP.
    @Test func valuesCannotSplitTheHead() {
        var block = FieldBlock()
        block.add("X-Request-ID", "a\r\nSet-Cookie: x=1\u{0}")
        block.field("Cache-Status") { $0.append("ok\ninjected") }
        #expect(Self.text(block) == "X-Request-ID: a  Set-Cookie: x=1 \r\nCache-Status: ok injected\r\n")
    }
}
