/// The raw content of a scanned, already validated JSON string: the bytes between its quotes.
@usableFromInline
package struct JSONStringToken: Sendable, Equatable {
    /// Offsets of the first content byte and of the closing quote.
    @usableFromInline package let start: Int
    @usableFromInline package let end: Int
    /// Whether the content holds any backslash escape (else it is the string's UTF-8 as is).
    @usableFromInline package let hasEscapes: Bool

    @inlinable
    package init(start: Int, end: Int, hasEscapes: Bool) {
        self.start = start
        self.end = end
        self.hasEscapes = hasEscapes
    }
}
