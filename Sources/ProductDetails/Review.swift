/// One customer review of a product, as the reviews upstream describes it.
public struct Review: Sendable, Equatable, Hashable, Codable {
    public var id: String
    public var rating: Int
    public var text: String

    public init(id: String, rating: Int, text: String) {
        self.id = id
        self.rating = rating
        self.text = text
    }
}
