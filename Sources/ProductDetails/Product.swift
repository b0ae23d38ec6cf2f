/// A catalogue product as the products upstream describes it.
///
/// Money is an integer count of the currency's ISO 4217 minor unit (`priceInCents`, named before
/// currencies without cents were considered: whole yen for JPY): binary floating point cannot hold
/// 0.10 exactly, and a price page must never show 9.989999.
package struct Product: Sendable, Equatable, Hashable, Codable {
    package var id: String
    package var name: String
    package var priceInCents: Int
    package var currency: String

    package init(id: String, name: String, priceInCents: Int, currency: String) {
        self.id = id
        self.name = name
        self.priceInCents = priceInCents
        self.currency = currency
    }
}
