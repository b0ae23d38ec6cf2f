/// A product as the products upstream serves it: `{"id","name","priceInCents","currency"}`.
/// Money is an integer count of the currency's ISO 4217 minor unit (cents, or whole yen), never
/// floating point.
package struct StubProduct: Sendable, Equatable {
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
