/// The few ASCII bytes the protocol's framing is made of.
enum ASCII {
    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")
    static let minus = UInt8(ascii: "-")
    static let plus = UInt8(ascii: "+")
    static let colon = UInt8(ascii: ":")
    static let dot = UInt8(ascii: ".")
    static let zero = UInt8(ascii: "0")
    static let nine = UInt8(ascii: "9")

    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= zero && byte <= nine
    }
}
