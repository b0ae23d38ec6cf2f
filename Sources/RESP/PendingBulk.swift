/// A bulk reply whose header line was read and whose payload has not fully arrived.
///
/// A payload that arrives whole (with its CRLF) is copied once, from the input into the value. One
/// that arrives in pieces is gathered as it comes into the array the value will hold, so it is
/// copied once too, and the caller never keeps it: its buffer holds at most a line.
struct PendingBulk: Sendable {
    enum Kind: Sendable {
        case string, error, verbatim
    }

    /// What the gathering array reserves at first: a declared length is not trusted further
    /// before its bytes arrive.
    static let firstReservation = 64 << 10

    let kind: Kind
    let length: Int
    /// The payload's bytes so far, when it arrives in pieces.
    private(set) var gathered: [UInt8] = []

    init(kind: Kind, length: Int) {
        self.kind = kind
        self.length = length
    }

    /// Payload bytes still to come.
    var missing: Int { length - gathered.count }

    mutating func gather(_ piece: UnsafeRawBufferPointer) {
        if gathered.isEmpty { gathered.reserveCapacity(min(length, Self.firstReservation)) }
        gathered.append(contentsOf: piece)
    }

    /// The value made of a complete payload (without its CRLF).
    func value(from payload: UnsafeRawBufferPointer) throws(RESPParseError) -> RESPValue {
        try Self.value(kind, Array(payload))
    }

    /// The value made of the gathered payload, once all of it is here.
    consuming func gatheredValue() throws(RESPParseError) -> RESPValue {
        try Self.value(kind, gathered)
    }

    private static func value(_ kind: Kind, _ payload: [UInt8]) throws(RESPParseError) -> RESPValue {
        switch kind {
        case .string:
            return .bulkString(payload)
        case .error:
            return .bulkError(payload)
        case .verbatim:
            // The header check guarantees four bytes; the colon is checked here. Verbatim strings
            // are RESP3 only and never on a hot path: the text's extra copy does not matter.
            guard payload[3] == ASCII.colon else { throw .invalidVerbatimString }
            return .verbatimString(format: String(decoding: payload[0..<3], as: UTF8.self), text: Array(payload[4...]))
        }
    }
}
