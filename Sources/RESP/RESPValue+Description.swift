extension RESPValue: CustomStringConvertible {
    /// A one-line rendering prefixed with the wire type byte, such as `*[$"GET", :1]`. Bytes
    /// outside printable ASCII are escaped, so distinct replies never render the same (except
    /// the payloads of different NaNs), which lets tests and the fuzzer compare renderings.
    package var description: String {
        switch self {
        case .simpleString(let bytes): "+" + Self.quoted(bytes)
        case .simpleError(let bytes): "-" + Self.quoted(bytes)
        case .integer(let value): ":\(value)"
        case .bulkString(let bytes): "$" + Self.quoted(bytes)
        case .null: "_"
        case .array(let values): "*" + Self.list(values)
        case .boolean(let value): value ? "#t" : "#f"
        case .double(let value): ",\(value)"
        case .bigNumber(let digits): "(" + digits
        case .bulkError(let bytes): "!" + Self.quoted(bytes)
        case .verbatimString(let format, let text): "=" + Self.quoted(Array(format.utf8)) + ":" + Self.quoted(text)
        case .map(let entries): "%{" + entries.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        case .set(let values): "~" + Self.list(values)
        case .push(let values): ">" + Self.list(values)
        }
    }

    private static func list(_ values: [RESPValue]) -> String {
        "[" + values.map(\.description).joined(separator: ", ") + "]"
    }

    private static func quoted(_ bytes: [UInt8]) -> String {
        var text = "\""
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): text += "\\\""
            case UInt8(ascii: "\\"): text += "\\\\"
            case 0x20...0x7E: text.unicodeScalars.append(Unicode.Scalar(byte))
            default: text += "\\x" + hexDigits(byte)
            }
        }
        return text + "\""
    }

    private static func hexDigits(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef".unicodeScalars)
        return String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
    }
}
