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
