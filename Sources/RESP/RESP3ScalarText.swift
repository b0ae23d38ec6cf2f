/// Reads the one-line scalars RESP3 added: null, boolean, double and big number.
///
/// Each grammar is checked strictly, so that a reply Redis could not have sent is an error
/// rather than a value guessed from it.
enum RESP3ScalarText {
    static func null(_ text: UnsafeRawBufferPointer) throws(RESPParseError) -> RESPValue {
        guard text.isEmpty else { throw .invalidNull }
        return .null
    }

    static func boolean(_ text: UnsafeRawBufferPointer) throws(RESPParseError) -> Bool {
        if text.elementsEqual("t".utf8) { return true }
        if text.elementsEqual("f".utf8) { return false }
        throw .invalidBoolean
    }

    /// `inf`, `-inf`, `nan`, or `[+|-]digits[.digits][(e|E)[+|-]digits]`. The text is checked
    /// here because the standard library's conversion also accepts forms the protocol does not
    /// have (hexadecimal, `infinity`, `nan(...)`).
    static func double(_ text: UnsafeRawBufferPointer) throws(RESPParseError) -> Double {
        if text.elementsEqual("inf".utf8) { return .infinity }
        if text.elementsEqual("-inf".utf8) { return -.infinity }
        if text.elementsEqual("nan".utf8) { return .nan }
        var index = 0
        skipSign(text, &index)
        guard skipDigits(text, &index) > 0 else { throw .invalidDouble }
        if index < text.count, text[index] == ASCII.dot {
            index += 1
            guard skipDigits(text, &index) > 0 else { throw .invalidDouble }
        }
        if index < text.count, text[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            skipSign(text, &index)
            guard skipDigits(text, &index) > 0 else { throw .invalidDouble }
        }
        guard index == text.count, let value = Double(String(decoding: text, as: UTF8.self)) else {
            throw .invalidDouble
        }
        return value
    }

    /// Kept as text: Swift has no integer type of unbounded size, and callers rarely need one.
    static func bigNumber(_ text: UnsafeRawBufferPointer) throws(RESPParseError) -> String {
        var index = 0
        skipSign(text, &index)
        guard skipDigits(text, &index) > 0, index == text.count else { throw .invalidBigNumber }
        return String(decoding: text, as: UTF8.self)
    }

    private static func skipSign(_ text: UnsafeRawBufferPointer, _ index: inout Int) {
        if index < text.count, text[index] == ASCII.minus || text[index] == ASCII.plus { index += 1 }
    }

    /// Advances past decimal digits and returns how many there were.
    private static func skipDigits(_ text: UnsafeRawBufferPointer, _ index: inout Int) -> Int {
        let start = index
        while index < text.count, ASCII.isDigit(text[index]) { index += 1 }
        return index - start
    }
}
