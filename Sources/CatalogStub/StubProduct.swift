/// A product as the products upstream serves it: `{"id","name","priceInCents","currency"}`.
/// Money is an integer count of the currency's ISO 4217 minor unit (cents, or whole yen), never
/// floating point.
public struct StubProduct: Sendable, Equatable {
    public var id: String
    public var name: String
    public var priceInCents: Int
    public var currency: String

    public init(id: String, name: String, priceInCents: Int, currency: String) {
        self.id = id
        self.name = name
        self.priceInCents = priceInCents
        self.currency = currency
    }
}
