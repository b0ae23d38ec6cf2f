import HTTP1
import Testing

struct PercentDecodingTests {
    @Test func escapesDecodeInEitherCase() throws {
        #expect(try PercentDecoding.decode("%70%31", plusIsSpace: false) == "p1")
        #expect(try PercentDecoding.decode("a%2fb%2Fc", plusIsSpace: false) == "a/b/c")
        #expect(try PercentDecoding.decode("caf%C3%A9", plusIsSpace: false) == "café")
        #expect(try PercentDecoding.decode("%25", plusIsSpace: false) == "%")
        #expect(try PercentDecoding.decode("", plusIsSpace: true) == "")
        #expect(try PercentDecoding.decode("plain", plusIsSpace: true) == "plain")
    }

    @Test func plusIsASpaceOnlyInFormEncoding() throws {
        #expect(try PercentDecoding.decode("a+b%2B", plusIsSpace: true) == "a b+")
        #expect(try PercentDecoding.decode("a+b%2B", plusIsSpace: false) == "a+b+")
        #expect(try PercentDecoding.decode("p@ss+word", plusIsSpace: false) == "p@ss+word")
    }

    @Test(arguments: ["%", "a%", "%4", "a%4", "%G1", "%1G", "%%41", "% 41"])
    func aPercentWithoutTwoHexDigitsIsMalformed(text: String) {
        #expect(throws: PercentDecoding.Failure.malformedEscape) { try PercentDecoding.decode(Substring(text), plusIsSpace: false) }
        #expect(throws: PercentDecoding.Failure.malformedEscape) { try PercentDecoding.decode(Substring(text), plusIsSpace: true) }
    }

    @Test(arguments: ["%FF", "%C3", "a%C3%28", "%ED%A0%80", "%C0%AF"])
    func bytesThatAreNotUTF8AreRefused(text: String) {
        #expect(throws: PercentDecoding.Failure.notUTF8) { try PercentDecoding.decode(Substring(text), plusIsSpace: false) }
    }
}
