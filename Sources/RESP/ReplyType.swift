/// The first byte of every RESP reply, which says how the rest is framed.
enum ReplyType: Sendable {
    case simpleString, simpleError, integer, bulkString, array
    case null, boolean, double, bigNumber, bulkError, verbatimString
    case map, set, attribute, push

    init?(byte: UInt8) {
        switch byte {
        case UInt8(ascii: "+"): self = .simpleString
        case UInt8(ascii: "-"): self = .simpleError
        case UInt8(ascii: ":"): self = .integer
        case UInt8(ascii: "$"): self = .bulkString
        case UInt8(ascii: "*"): self = .array
        case UInt8(ascii: "_"): self = .null
        case UInt8(ascii: "#"): self = .boolean
        case UInt8(ascii: ","): self = .double
        case UInt8(ascii: "("): self = .bigNumber
        case UInt8(ascii: "!"): self = .bulkError
        case UInt8(ascii: "="): self = .verbatimString
        case UInt8(ascii: "%"): self = .map
        case UInt8(ascii: "~"): self = .set
        case UInt8(ascii: "|"): self = .attribute
        case UInt8(ascii: ">"): self = .push
        default: return nil
        }
    }
}
