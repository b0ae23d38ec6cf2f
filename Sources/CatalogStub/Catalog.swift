/// A deterministic product catalog: `size` products with ids `p1…pN`, their reviews and
/// suggestions, all derived from `seed`.
///
/// Nothing is stored: every product, review list and suggestion list is a pure function of
/// (seed, index), computed when asked, so a catalog of any size starts in constant time and two
/// catalogs with the same size and seed are equal in every answer, on every run and machine.
package struct Catalog: Sendable, Equatable {
    package let size: Int
    package let seed: UInt64

    package static let maxReviews = 20
    package static let maxSuggestions = 8

    package init(size: Int, seed: UInt64) {
        precondition(size >= 0, "a catalog cannot have a negative size")
        self.size = size
        self.seed = seed
    }

    /// The index (1…size) of a canonical id `p<n>`, or nil. `p01`, `p0`, `P1` and `p+1` are not
    /// ids, so no two spellings name one product.
    package func index(of id: String) -> Int? {
        guard let number = Self.number(in: id) else { return nil }
        return number <= size ? number : nil
    }

    /// The number `n` of a canonical id `p<n>` (1 or more, no leading zero), whatever the
    /// catalog's size; nil for any other id.
    package static func number(in id: String) -> Int? {
        let utf8 = id.utf8
        guard utf8.count >= 2, utf8.count <= 20, utf8.first == UInt8(ascii: "p") else { return nil }
        let digits = utf8.dropFirst()
        guard digits.first != UInt8(ascii: "0") else { return nil }
        var value = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        return value
    }

    package static func id(ofIndex index: Int) -> String { "p\(index)" }

    package func product(_ id: String) -> StubProduct? {
        index(of: id).map(product(at:))
    }

    package func reviews(_ id: String) -> [StubReview]? {
        index(of: id).map(reviews(at:))
    }

    package func suggestions(_ id: String) -> [StubProduct]? {
        index(of: id).map { suggestionIndices(at: $0).map(product(at:)) }
    }

    /// The product's JSON object, as the products upstream answers it.
    package func productJSON(_ id: String) -> [UInt8]? {
        product(id).map(Self.json(of:))
    }

    /// The product's reviews as a JSON array.
    package func reviewsJSON(_ id: String) -> [UInt8]? {
        reviews(id).map(Self.json(of:))
    }

    /// The product's suggestions as a JSON array of product objects.
    package func suggestionsJSON(_ id: String) -> [UInt8]? {
        suggestions(id).map(Self.json(of:))
    }
}

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

/// A review as the reviews upstream serves it: `{"id","rating","text"}`, rating 1…5.
package struct StubReview: Sendable, Equatable {
    package var id: String
    package var rating: Int
    package var text: String

    package init(id: String, rating: Int, text: String) {
        self.id = id
        self.rating = rating
        self.text = text
    }
}
