/// What a body decoder produced from one call; the parsers map it onto their
/// public `Event` types.
enum BodyStep: Sendable, Equatable {
    case needMoreData
    /// Payload bytes at this range of the input.
    case body(Range<Int>)
    /// The body (and any trailers) is complete.
    case end
}
