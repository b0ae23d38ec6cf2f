import RESP
import Testing

@Suite("Reply values")
struct RESPValueTests {
    @Test func accessorsAnswerOnlyForTheirOwnCases() {
        let bulk = RESPValue.bulkString(bytes("page"))
        #expect(bulk.bulkBytes == bytes("page"))
        #expect(bulk.stringBytes == bytes("page"))
        #expect(bulk.integer == nil)
        #expect(!bulk.isNull && !bulk.isError)

        let simple = RESPValue.simpleString(bytes("OK"))
        #expect(simple.bulkBytes == nil)
        #expect(simple.string == "OK")

        let verbatim = RESPValue.verbatimString(format: "txt", text: bytes("text"))
        #expect(verbatim.string == "text")
        #expect(verbatim.bulkBytes == nil)

        #expect(RESPValue.integer(-3).integer == -3)
        #expect(RESPValue.null.isNull)
        #expect(RESPValue.null.bulkBytes == nil)
        #expect(RESPValue.boolean(false).boolean == false)
        #expect(RESPValue.double(0.5).double == 0.5)
        #expect(RESPValue.integer(1).double == nil)
    }

    @Test func errorsGiveTheirMessageAndCode() {
        let simple = RESPValue.simpleError(bytes("NOSCRIPT No matching script. Please use EVAL."))
        #expect(simple.isError)
        #expect(simple.errorMessage == "NOSCRIPT No matching script. Please use EVAL.")
        #expect(simple.errorCode == "NOSCRIPT")
        let bulk = RESPValue.bulkError(bytes("WRONGTYPE Operation against a key"))
        #expect(bulk.isError)
        #expect(bulk.errorCode == "WRONGTYPE")
        #expect(RESPValue.simpleString(bytes("ERR")).errorMessage == nil)
        #expect(RESPValue.simpleError(bytes("ERR")).errorCode == "ERR")
    }

    @Test func aggregatesGiveTheirElements() {
        let elements: [RESPValue] = [.integer(1), .null]
        #expect(RESPValue.array(elements).elements == elements)
        #expect(RESPValue.set(elements).elements == elements)
        #expect(RESPValue.push(elements).elements == elements)
        #expect(RESPValue.map([]).elements == nil)
        let entries = [RESPMapEntry(key: .simpleString(bytes("k")), value: .integer(2))]
        #expect(RESPValue.map(entries).mapEntries == entries)
        #expect(RESPValue.array([]).mapEntries == nil)
    }

    @Test func descriptionsShowTypesAndEscapeBytes() {
        let value = RESPValue.array([
            .bulkString([0x61, 0x0D, 0x0A, 0xFF, 0x22, 0x5C]), .integer(-1), .null,
            .map([RESPMapEntry(key: .simpleString(bytes("k")), value: .boolean(true))]),
            .verbatimString(format: "txt", text: bytes("x")), .bigNumber("12"), .double(1.5),
        ])
        #expect(value.description == #"*[$"a\x0d\x0a\xff\"\\", :-1, _, %{+"k": #t}, ="txt":"x", (12, ,1.5]"#)
    }
}
