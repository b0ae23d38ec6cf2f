/// An optional part of a detail document that could not be had from its upstream.
///
/// The raw values are the names clients see in the document's `"missing"` list.
package enum DetailPart: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
    case reviews
    case suggested
}

/// The merged answer for one product page: the product, its reviews and suggestions.
///
/// `product` is required; when reviews or suggestions cannot be had the page is still served,
/// with that part empty and named in `missing`, because a page without reviews beats an error page.
package struct ProductDetail: Sendable, Equatable, Codable {
    package var product: Product
    package var reviews: [Review]
    package var suggested: [Product]
    package var missing: [DetailPart]

    package init(product: Product, reviews: [Review], suggested: [Product], missing: [DetailPart] = []) {
        self.product = product
        self.reviews = reviews
        self.suggested = suggested
        self.missing = missing
    }
}

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

/// One customer review of a product, as the reviews upstream describes it.
package struct Review: Sendable, Equatable, Hashable, Codable {
    package var id: String
    package var rating: Int
    package var text: String

    package init(id: String, rating: Int, text: String) {
        self.id = id
        self.rating = rating
        self.text = text
    }
}
