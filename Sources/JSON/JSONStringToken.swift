/// The raw content of a scanned, already validated JSON string: the bytes between its quotes.
public struct JSONStringToken: Sendable, Equatable {
    /// Offsets of the first content byte and of the closing quote.
    public let start: Int
    public let end: Int
    /// Whether the content holds any backslash escape (else it is the string's UTF-8 as is).
    public let hasEscapes: Bool

    @inlinable
    public init(start: Int, end: Int, hasEscapes: Bool) {
        self.start = start
        self.end = end
        self.hasEscapes = hasEscapes
    }
}
