/// The three upstream routes the stub serves, plus `all` for fault plans that apply to each.
package enum StubRoute: String, Sendable, CaseIterable {
    case product, reviews, suggested, all

    /// The routes that answer requests (every case but `all`).
    package static let served: [StubRoute] = [.product, .reviews, .suggested]
}
