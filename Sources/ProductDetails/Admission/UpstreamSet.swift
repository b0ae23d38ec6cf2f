/// Some of the three upstreams: those a page load needs room at.
package struct UpstreamSet: OptionSet, Sendable, Hashable {
    package let rawValue: UInt8

    package init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    package init(_ upstream: Upstream) {
        switch upstream {
        case .products: rawValue = 1
        case .reviews: rawValue = 2
        case .suggestions: rawValue = 4
        }
    }

    package static let all: UpstreamSet = [UpstreamSet(.products), UpstreamSet(.reviews), UpstreamSet(.suggestions)]

    package func contains(_ upstream: Upstream) -> Bool {
        contains(UpstreamSet(upstream))
    }
}
