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
