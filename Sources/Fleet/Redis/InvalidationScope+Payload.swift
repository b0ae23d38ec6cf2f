import ProductDetails

extension InvalidationScope {
    /// How the scope is published on the invalidation channel: `p:<id>`, `b:<id> <id> …` or `*`.
    package var payload: [UInt8] {
        switch self {
        case .product(let id): Array(("p:" + id).utf8)
        case .products(let ids): Array(("b:" + ids.joined(separator: " ")).utf8)
        case .everything: Array("*".utf8)
        }
    }

    /// A message of the invalidation channel: `<sequence> <payload>`; `nil` for one this
    /// version does not read (a newer release's): ignored.
    package static func message(_ bytes: [UInt8]) -> (sequence: UInt64, scope: InvalidationScope)? {
        guard let space = bytes.firstIndex(of: UInt8(ascii: " ")),
              let digits = String(validating: bytes[..<space], as: UTF8.self), let sequence = UInt64(digits),
              let scope = InvalidationScope(payload: Array(bytes[(space + 1)...]))
        else { return nil }
        return (sequence, scope)
    }

    /// `nil` for a payload this version does not know (a newer release's message): ignored.
    package init?(payload: [UInt8]) {
        if payload == Array("*".utf8) {
            self = .everything
            return
        }
        guard payload.count > 2, payload[1] == UInt8(ascii: ":"),
              let text = String(validating: payload.dropFirst(2), as: UTF8.self)
        else { return nil }
        switch payload[0] {
        case UInt8(ascii: "p"):
            self = .product(text)
        case UInt8(ascii: "b"):
            let ids = text.split(separator: " ").map(String.init)
            guard !ids.isEmpty else { return nil }
            self = .products(ids)
        default:
            return nil
        }
    }
}
