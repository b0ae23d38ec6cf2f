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
