import Foundation
import Testing
@testable import CatalogStub
import TestSupport

@Suite struct CatalogTests {
    let catalog = Catalog(size: 10_000, seed: 42)

    @Test func p1HasItsStableValues() {
        // Computed once from seed 42; a change here changes every demo, test and benchmark.
        #expect(catalog.product("p1") == StubProduct(id: "p1", name: "Elegant Glass Bookshelf", priceInCents: 44300, currency: "JPY"))
        #expect(catalog.reviews("p1") == [
            StubReview(id: "p1-r1", rating: 1, text: "Disappointing. A great gift idea."),
            StubReview(id: "p1-r2", rating: 1, text: "Disappointing. Shipping was fast."),
            StubReview(id: "p1-r3", rating: 2, text: "Meh. My kids use it daily."),
        ])
        #expect(catalog.suggestions("p1")?.map(\.id) == ["p5855", "p2906", "p2468"])
        #expect(catalog.productJSON("p1") == Array(#"{"id":"p1","name":"Elegant Glass Bookshelf","priceInCents":44300,"currency":"JPY"}"#.utf8))
    }

    @Test func twoCatalogsWithOneSeedAgree() {
        let other = Catalog(size: 10_000, seed: 42)
        for index in stride(from: 1, through: 10_000, by: 37) {
            let id = "p\(index)"
            #expect(other.product(id) == catalog.product(id))
            #expect(other.reviews(id) == catalog.reviews(id))
            #expect(other.suggestions(id) == catalog.suggestions(id))
            #expect(other.reviewsJSON(id) == catalog.reviewsJSON(id))
        }
    }

    @Test func anotherSeedIsAnotherCatalog() {
        let other = Catalog(size: 10_000, seed: 43)
        let differing = (1...50).filter { other.product("p\($0)") != catalog.product("p\($0)") }
        #expect(differing.count > 40)
    }

    @Test func everyProductIsInRange() {
        var reviewCounts = Set<Int>()
        var suggestionCounts = Set<Int>()
        for index in 1...catalog.size {
            let id = "p\(index)"
            let product = try! #require(catalog.product(id))
            #expect(product.id == id)
            #expect(!product.name.isEmpty)
            #expect(["USD", "EUR", "GBP", "JPY"].contains(product.currency))
            // In the currency's minor unit: 99 cents endings, whole yen in round hundreds.
            if product.currency == "JPY" {
                #expect((0...99_900).contains(product.priceInCents) && product.priceInCents % 100 == 0)
            } else {
                #expect((99...99_999).contains(product.priceInCents) && product.priceInCents % 100 == 99)
            }
            let reviews = try! #require(catalog.reviews(id))
            #expect((0...20).contains(reviews.count))
            #expect(reviews.map(\.id) == reviews.indices.map { "\(id)-r\($0 + 1)" })
            #expect(reviews.allSatisfy { (1...5).contains($0.rating) })
            let suggestions = catalog.suggestionIndices(at: index)
            #expect((0...8).contains(suggestions.count))
            #expect(!suggestions.contains(index))
            #expect(Set(suggestions).count == suggestions.count)
            #expect(suggestions.allSatisfy { (1...catalog.size).contains($0) })
            reviewCounts.insert(reviews.count)
            suggestionCounts.insert(suggestions.count)
        }
        #expect(reviewCounts == Set(0...20))
        #expect(suggestionCounts == Set(0...8))
    }

    @Test func suggestionsAreFullProducts() throws {
        let suggestions = try #require(catalog.suggestions("p1"))
        for suggestion in suggestions {
            #expect(catalog.product(suggestion.id) == suggestion)
        }
    }

    @Test(arguments: ["p0", "p10001", "x", "", "p", "p01", "P1", "p+1", "p-1", "p1x", "p99999999999999999999999"])
    func unknownIdsAreNil(id: String) {
        #expect(catalog.product(id) == nil)
        #expect(catalog.reviews(id) == nil)
        #expect(catalog.suggestions(id) == nil)
        #expect(catalog.productJSON(id) == nil)
        #expect(catalog.reviewsJSON(id) == nil)
        #expect(catalog.suggestionsJSON(id) == nil)
    }

    @Test func aCatalogOfOneSuggestsNothing() {
        let single = Catalog(size: 1, seed: 7)
        #expect(single.suggestions("p1") == [])
        #expect(single.product("p2") == nil)
    }

    @Test func jsonParsesAndMatchesTheValues() throws {
        for index in 1...300 {
            let id = "p\(index)"
            let product = try #require(parseJSON(catalog.productJSON(id)) as? [String: Any])
            let expected = try #require(catalog.product(id))
            #expect(product["id"] as? String == expected.id)
            #expect(product["name"] as? String == expected.name)
            #expect(product["priceInCents"] as? Int == expected.priceInCents)
            #expect(product["currency"] as? String == expected.currency)
            #expect(product.count == 4)

            let reviews = try #require(parseJSON(catalog.reviewsJSON(id)) as? [[String: Any]])
            let expectedReviews = try #require(catalog.reviews(id))
            #expect(reviews.map { $0["id"] as? String } == expectedReviews.map(\.id))
            #expect(reviews.map { $0["rating"] as? Int } == expectedReviews.map(\.rating))
            #expect(reviews.map { $0["text"] as? String } == expectedReviews.map(\.text))

            let suggestions = try #require(parseJSON(catalog.suggestionsJSON(id)) as? [[String: Any]])
            let expectedSuggestions = try #require(catalog.suggestions(id))
            #expect(suggestions.map { $0["id"] as? String } == expectedSuggestions.map(\.id))
        }
    }

    @Test func trickyReviewTextsRoundTrip() throws {
        var seen = Set<String>()
        for index in 1...2_000 {
            let id = "p\(index)"
            let expected = try #require(catalog.reviews(id))
            let tricky = expected.filter { CatalogWords.trickyTexts.contains($0.text) }
            guard !tricky.isEmpty else { continue }
            let parsed = try #require(parseJSON(catalog.reviewsJSON(id)) as? [[String: Any]])
            #expect(parsed.map { $0["text"] as? String } == expected.map(\.text))
            seen.formUnion(tricky.map(\.text))
        }
        // Every escaping case appears somewhere in the first 2 000 products.
        #expect(seen == Set(CatalogWords.trickyTexts))
        #expect(seen.contains("Très bien — 👍"))
    }
}

/// Foundation's reading of `bytes` (nil bytes → nil).
func parseJSON(_ bytes: [UInt8]?) throws -> Any? {
    guard let bytes else { return nil }
    return try JSONSerialization.jsonObject(with: Data(bytes))
}
