/// A change to one catalog product, made with `PUT /control/products/{id}` (or
/// `CatalogStub.changeProduct`) so that tests, demos and benchmarks can see a price or a name move
/// upstream: the product's own answer and every suggestion list that includes it carry the change.
///
/// A change replaces the previous one: a field it leaves out (nil) is the catalog's own value, so
/// the same request always leaves the product in the same state. The currency cannot change: the
/// price's unit would change with it, and no test needs that.
package struct ProductChange: Sendable, Equatable {
    package var name: String?
    package var priceInCents: Int?

    /// Ten million units of a two-decimal currency: beyond any shop's price, within 32 bits.
    package static let maxPriceInCents = 1_000_000_000
    /// Far beyond the catalog's longest name (about 40 bytes), short enough for a page.
    package static let maxNameBytes = 200

    package init(name: String? = nil, priceInCents: Int? = nil) {
        self.name = name
        self.priceInCents = priceInCents
    }

    /// `product` with this change's fields in place of its own.
    package func applied(to product: StubProduct) -> StubProduct {
        var changed = product
        if let name { changed.name = name }
        if let priceInCents { changed.priceInCents = priceInCents }
        return changed
    }

    /// Why the stub refuses this change, or nil when it is valid: it changes something, the price
    /// is within 0…`maxPriceInCents`, the name is 1…`maxNameBytes` bytes of UTF-8, not only
    /// spaces, and without control characters (a name is one line of a page).
    package var refusal: String? {
        if name == nil && priceInCents == nil {
            return "A change needs \"name\", \"priceInCents\" or both; DELETE the product's change to undo it."
        }
        if let priceInCents, !(0...Self.maxPriceInCents).contains(priceInCents) {
            return Self.priceExpectation
        }
        if let name {
            let visible = name.unicodeScalars.contains { !$0.properties.isWhitespace }
            let control = name.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
            if !visible || control || name.utf8.count > Self.maxNameBytes { return Self.nameExpectation }
        }
        return nil
    }

    static let priceExpectation = "priceInCents must be an integer from 0 to \(maxPriceInCents) (the currency's minor unit)."
    static let nameExpectation = "name must be a string of 1 to \(maxNameBytes) bytes of UTF-8, not only spaces, without control characters."
}
