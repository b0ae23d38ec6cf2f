extension RESPReplyParser {
    /// Parses from `bytes[start...]`, for a caller that keeps its read position in an array
    /// instead of removing consumed bytes. `consumed` counts from `start`.
    package mutating func parse(
        _ bytes: [UInt8], from start: Int = 0
    ) throws(RESPParseError) -> (event: Event, consumed: Int) {
        precondition(start >= 0 && start <= bytes.count, "start \(start) outside 0...\(bytes.count)")
        // `withUnsafeBytes` rethrows untyped errors: carry the typed one out in a Result.
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(RESPParseError) in try parse(UnsafeRawBufferPointer(rebasing: raw[start...])) }
        }
        return try result.get()
    }
}
