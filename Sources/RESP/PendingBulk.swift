/// A bulk reply whose header line was read and whose payload has not fully arrived.
///
/// The payload is not copied piecemeal: it stays in the caller's buffer until all of it and its
/// CRLF are there, then it is copied once into the value.
struct PendingBulk: Sendable {
    enum Kind: Sendable {
        case string, error, verbatim
    }

    let kind: Kind
    let length: Int

    /// The value made of a complete payload (without its CRLF).
    func value(from payload: UnsafeRawBufferPointer) throws(RESPParseError) -> RESPValue {
        switch kind {
        case .string:
            return .bulkString(Array(payload))
        case .error:
            return .bulkError(Array(payload))
        case .verbatim:
            // The header check guarantees four bytes; the colon is checked here.
            guard payload[3] == ASCII.colon else { throw .invalidVerbatimString }
            return .verbatimString(
                format: String(decoding: UnsafeRawBufferPointer(rebasing: payload[0..<3]), as: UTF8.self),
                text: Array(payload[4...]))
        }
    }
}
