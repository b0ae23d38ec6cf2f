/// Valid JSON bodies of at least a given size, shaped like each route's normal answer, so a
/// client's body limit (not its JSON decoder) is what refuses them.
enum OversizedBody {
    static func product(_ product: StubProduct, atLeast bytes: Int) -> [UInt8] {
        var padded = product
        padded.name += " " + padding(bytes - Catalog.json(of: product).count)
        return Catalog.json(of: padded)
    }

    /// The reviews plus one review whose text pads the array to size.
    static func reviews(_ reviews: [StubReview], productID: String, atLeast bytes: Int) -> [UInt8] {
        var all = reviews
        let filler = StubReview(id: "\(productID)-r\(reviews.count + 1)", rating: 3, text: "")
        all.append(filler)
        let base = Catalog.json(of: all).count
        all[all.count - 1].text = padding(bytes - base)
        return Catalog.json(of: all)
    }

    /// The suggestions with the first one's name padded (`neighbour` stands in when there are
    /// none).
    static func suggestions(_ products: [StubProduct], neighbour: StubProduct, atLeast bytes: Int) -> [UInt8] {
        var all = products.isEmpty ? [neighbour] : products
        let base = Catalog.json(of: all).count
        all[0].name += " " + padding(bytes - base)
        return Catalog.json(of: all)
    }

    /// Plain ASCII words (nothing to escape), `count` bytes or more.
    static func padding(_ count: Int) -> String {
        let word = "lorem ipsum dolor sit amet "
        let repeats = max(0, count) / word.utf8.count + 1
        return String(repeating: word, count: repeats)
    }
}
