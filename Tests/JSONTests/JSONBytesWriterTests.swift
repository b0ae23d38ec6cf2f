import Foundation
import JSON
import Testing

/// The byte writer: escaping, numbers and buffer hand-over.
struct JSONBytesWriterTests {
    @Test func controlCharactersAreEscapedAsUnicodeEscapes() {
        var writer = JSONBytesWriter()
        writer.string("a\u{01}\n\u{1F}\"\\")
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #""a\u0001\u000a\u001f\"\\""#)
    }

    @Test(arguments: [
        (0, "0.0"), (1, "0.001"), (50, "0.05"), (1000, "1.0"), (1500, "1.5"), (12345, "12.345"),
        (120_000, "120.0"), (-2500, "-2.5"), (9_000_001, "9000.001"),
    ])
    func fixedPointNumbersKeepOneFractionDigitAndNoTrailingZeros(scaled: Int, text: String) throws {
        var writer = JSONBytesWriter()
        writer.fixedPoint(scaled, decimals: 3)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == text)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(writer.bytes), options: .fragmentsAllowed) as? NSNumber)
        #expect(parsed.doubleValue == Double(scaled) / 1000)
    }

    @Test func anAdoptedBufferKeepsItsBytesAndComesBackWhole() {
        var buffer = Array("[1,".utf8)
        var writer = JSONBytesWriter(adopting: &buffer)
        #expect(buffer.isEmpty)
        writer.int(2)
        writer.raw("]")
        #expect(String(decoding: writer.release(), as: UTF8.self) == "[1,2]")
        #expect(writer.bytes.isEmpty)
    }

    @Test func escapesRoundTripThroughFoundation() throws {
        let texts = ["", "plain", "\"", "\\", "\u{00}\u{1F}\u{7F}", "Très bien — 👍", "\r\n\t", "</script>", "\u{2028}"]
        for text in texts {
            var writer = JSONBytesWriter()
            writer.raw("[")
            writer.string(text)
            writer.raw("]")
            let parsed = try JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String]
            #expect(parsed == [text])
        }
    }
}
