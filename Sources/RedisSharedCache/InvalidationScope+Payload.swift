import ProductDetails

extension InvalidationScope {
    /// How the scope is published on the invalidation channel: `p:<id>` or `*`.
    package var payload: [UInt8] {
        switch self {
        case .product(let id): Array(("p:" + id).utf8)
        case .everything: Array("*".utf8)
        }
    }

    /// `nil` for a payload this version does not know (a newer release's message): ignored.
    package init?(payload: [UInt8]) {
        if payload == Array("*".utf8) {
            self = .everything
        } else if payload.starts(with: Array("p:".utf8)), let id = String(validating: payload.dropFirst(2), as: UTF8.self), !id.isEmpty {
            self = .product(id)
        } else {
            return nil
        }
    }
}
