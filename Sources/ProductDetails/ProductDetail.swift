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
