/// How products, reviews and suggestions are derived. Each has its own generator stream, so
/// changing how reviews are made never changes a product's name or price.
extension Catalog {
    private enum Stream: UInt64 {
        case product = 1, reviews = 2, suggestions = 3
    }

    private func generator(_ stream: Stream, _ index: Int) -> SplitMix64 {
        SplitMix64(seed: seed, stream: stream.rawValue, index: UInt64(index))
    }

    /// The product at `index` (1…size).
    func product(at index: Int) -> StubProduct {
        var random = generator(.product, index)
        let name = "\(random.pick(CatalogWords.adjectives)) \(random.pick(CatalogWords.materials)) \(random.pick(CatalogWords.nouns))"
        let units = random.int(in: 0...999)
        let currency = random.pick(CatalogWords.currencies)
        // Prices are in the currency's ISO 4217 minor unit: 0…999 units ending in 99 cents for
        // the two-decimal currencies; the yen has no minor unit (exponent 0), so whole yen in
        // round hundreds (0…99 900).
        let price = currency == "JPY" ? units * 100 : units * 100 + 99
        return StubProduct(id: Self.id(ofIndex: index), name: name, priceInCents: price, currency: currency)
    }

    /// 0…20 reviews. About one in six uses a text with quotes, backslashes, control characters or
    /// non-ASCII, so clients' JSON decoding meets escaping on ordinary pages.
    func reviews(at index: Int) -> [StubReview] {
        var random = generator(.reviews, index)
        let count = random.int(in: 0...Self.maxReviews)
        let productID = Self.id(ofIndex: index)
        var reviews: [StubReview] = []
        reviews.reserveCapacity(count)
        for number in 1..<(count + 1) {
            let rating = random.int(in: 1...5)
            let text: String
            if random.int(in: 0...5) == 0 {
                text = random.pick(CatalogWords.trickyTexts)
            } else {
                text = "\(random.pick(CatalogWords.openings[rating - 1])) \(random.pick(CatalogWords.remarks))"
            }
            reviews.append(StubReview(id: "\(productID)-r\(number)", rating: rating, text: text))
        }
        return reviews
    }

    /// 0…8 distinct indices of other products (never `index` itself).
    func suggestionIndices(at index: Int) -> [Int] {
        var random = generator(.suggestions, index)
        let count = min(random.int(in: 0...Self.maxSuggestions), size - 1)
        var chosen: [Int] = []
        chosen.reserveCapacity(count)
        while chosen.count < count {
            let candidate = random.int(in: 1...size)
            if candidate != index && !chosen.contains(candidate) { chosen.append(candidate) }
        }
        return chosen
    }
}

/// The vocabulary the catalog draws from. Changing these lists changes every catalog.
enum CatalogWords {
    static let adjectives = [
        "Ergonomic", "Rustic", "Sleek", "Handmade", "Compact", "Vintage", "Sturdy", "Elegant",
        "Lightweight", "Practical", "Refined", "Gorgeous", "Modern", "Classic", "Portable", "Smart",
    ]
    static let materials = [
        "Walnut", "Steel", "Cotton", "Granite", "Bamboo", "Leather", "Ceramic", "Wool",
        "Copper", "Glass", "Linen", "Oak",
    ]
    static let nouns = [
        "Desk Lamp", "Chair", "Kettle", "Backpack", "Notebook", "Mug", "Bookshelf", "Watch",
        "Blanket", "Speaker", "Teapot", "Umbrella", "Wallet", "Cutting Board", "Vase", "Bench",
        "Headphones", "Planter", "Clock", "Serving Bowl",
    ]
    static let currencies = ["USD", "EUR", "GBP", "JPY"]
    /// Openings by rating, 1 star first.
    static let openings = [
        ["Disappointing.", "Broke within a week.", "Not as described."],
        ["Meh.", "Could be better.", "Below expectations."],
        ["Decent.", "It does the job.", "Average quality."],
        ["Very good.", "Happy with it.", "Solid purchase."],
        ["Excellent!", "Love it.", "Exceeded my expectations."],
    ]
    static let remarks = [
        "Shipping was fast.", "The colour matches the photos.", "Would buy again.",
        "Packaging could be greener.", "My kids use it daily.", "Good value for the price.",
        "Instructions were unclear.", "Feels well made.", "A great gift idea.",
    ]
    /// Texts that exercise JSON escaping and UTF-8: quotes, backslashes, control characters,
    /// accents, CJK, emoji (outside the BMP, so UTF-16 clients meet surrogate pairs).
    static let trickyTexts = [
        "Très bien — 👍",
        #"He said "best purchase ever" and meant it."#,
        #"Saved to C:\Users\me\reviews\new.txt \o/"#,
        "Line one\nline two\ttabbed",
        "とても良い商品です。また買います！",
        "Ünïcödé everywhere: naïve café, smörgåsbord, 🚀✨",
        "Bell\u{07} and escape \u{1B} characters",
        #"Emoji in quotes: "😀" and a backslash \ alone"#,
    ]
}
