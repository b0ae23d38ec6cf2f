/// A catalogue product as the products upstream describes it.
///
/// Money is integer minor units (`priceInCents`): binary floating point cannot hold 0.10 exactly,
/// and a price page must never show 9.989999.
public struct Product: Sendable, Equatable, Hashable, Codable {
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
