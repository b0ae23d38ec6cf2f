/// A review as the reviews upstream serves it: `{"id","rating","text"}`, rating 1…5.
public struct StubReview: Sendable, Equatable {
    public var id: String
    public var rating: Int
    public var text: String

    public init(id: String, rating: Int, text: String) {
        self.id = id
        self.rating = rating
        self.text = text
    }
}
