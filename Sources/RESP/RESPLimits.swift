/// Bounds the reply parser enforces, so that a broken or hostile peer cannot make a client
/// buffer or nest without end.
///
/// Each bound is checked when a length, count or aggregate header is read, before anything is
/// allocated for it. Every reply of the values we store fits the defaults with a wide margin.
/// The per-header bounds alone multiply when aggregates nest, so `maxReplyBytes` bounds the
/// whole reply.
package struct RESPLimits: Sendable, Equatable {
    /// Largest payload of a bulk string, bulk error or verbatim string, in bytes. Redis allows
    /// 512 MiB; a page we cache is far smaller, and the caller's buffer holds a whole payload.
    package var maxBulkLength: Int
    /// Most elements of one array, set or push, or most entries of one map or attribute.
    package var maxAggregateCount: Int
    /// Most aggregates open inside one another (attributes included). It also bounds the
    /// recursion of `RESPValue`'s own equality, hashing and deinitialisation.
    package var maxDepth: Int
    /// Longest line after the type byte and before CRLF: simple strings and errors, numbers,
    /// lengths and counts.
    package var maxLineLength: Int
    /// Largest size of one reply, counted as the bytes it takes on the wire plus
    /// `bytesPerValue` for each value in it (attributes included). Wire bytes alone would
    /// understate the memory of many small elements, each of which becomes a value and a slot
    /// in its aggregate's storage; with the charge, the memory a parsed reply holds stays near
    /// this bound whatever its shape. A bulk payload is counted when its header is read, so a
    /// reply that cannot fit fails before the payload is buffered.
    ///
    /// The default is twice `maxBulkLength`: the largest reply we ask for is one page (a bulk
    /// string up to that limit) with a few small values around it, so every reply that passes
    /// the bulk limit fits with room, while one connection's reply never holds more than this.
    package var maxReplyBytes: Int

    /// What each value adds to a reply's size besides its wire bytes: about what a value costs
    /// in memory beyond its payload (its slot in an array, an allocation's header).
    package static let bytesPerValue = 64

    package init(
        maxBulkLength: Int = 16 << 20,
        maxAggregateCount: Int = 1 << 20,
        maxDepth: Int = 32,
        maxLineLength: Int = 64 << 10,
        maxReplyBytes: Int = 32 << 20
    ) {
        self.maxBulkLength = maxBulkLength
        self.maxAggregateCount = maxAggregateCount
        self.maxDepth = maxDepth
        self.maxLineLength = maxLineLength
        self.maxReplyBytes = maxReplyBytes
    }
}
