/// Bounds the reply parser enforces, so that a broken or hostile peer cannot make a client
/// buffer or nest without end.
///
/// Each bound is checked when a length, count or aggregate header is read, before anything is
/// allocated for it. Every reply of the values we store fits the defaults with a wide margin.
public struct RESPLimits: Sendable, Equatable {
    /// Largest payload of a bulk string, bulk error or verbatim string, in bytes. Redis allows
    /// 512 MiB; a page we cache is far smaller, and the caller's buffer holds a whole payload.
    public var maxBulkLength: Int
    /// Most elements of one array, set or push, or most entries of one map or attribute.
    public var maxAggregateCount: Int
    /// Most aggregates open inside one another (attributes included). It also bounds the
    /// recursion of `RESPValue`'s own equality, hashing and deinitialisation.
    public var maxDepth: Int
    /// Longest line after the type byte and before CRLF: simple strings and errors, numbers,
    /// lengths and counts.
    public var maxLineLength: Int

    public init(
        maxBulkLength: Int = 16 << 20,
        maxAggregateCount: Int = 1 << 20,
        maxDepth: Int = 32,
        maxLineLength: Int = 64 << 10
    ) {
        self.maxBulkLength = maxBulkLength
        self.maxAggregateCount = maxAggregateCount
        self.maxDepth = maxDepth
        self.maxLineLength = maxLineLength
    }
}
