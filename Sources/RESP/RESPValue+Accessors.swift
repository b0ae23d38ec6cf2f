extension RESPValue {
    /// Whether this is `$-1`, `*-1` or `_`.
    package var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// Whether Redis answered with an error (`-` or `!`) instead of a result.
    package var isError: Bool {
        switch self {
        case .simpleError, .bulkError: true
        default: false
        }
    }

    /// The value of an integer reply.
    package var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The payload of a bulk string: what `GET` and most value-returning commands answer.
    package var bulkBytes: [UInt8]? {
        if case .bulkString(let bytes) = self { return bytes }
        return nil
    }

    /// The bytes of any string reply (simple, bulk or verbatim text), for callers that accept
    /// whichever form the server chose.
    package var stringBytes: [UInt8]? {
        switch self {
        case .simpleString(let bytes), .bulkString(let bytes): bytes
        case .verbatimString(_, let text): text
        default: nil
        }
    }

    /// `stringBytes` decoded as UTF-8, invalid sequences replaced: for status words and
    /// diagnostics, not for stored data.
    package var string: String? {
        stringBytes.map { String(decoding: $0, as: UTF8.self) }
    }

    /// The whole message of an error reply, such as `NOSCRIPT No matching script.`
    package var errorMessage: String? {
        switch self {
        case .simpleError(let bytes), .bulkError(let bytes): String(decoding: bytes, as: UTF8.self)
        default: nil
        }
    }

    /// The first word of an error message, such as `NOSCRIPT` or `WRONGTYPE`: by Redis's
    /// convention, what a client matches on to decide how to react.
    package var errorCode: String? {
        guard let message = errorMessage else { return nil }
        return String(message.prefix { $0 != " " })
    }

    /// The elements of an array, set or push.
    package var elements: [RESPValue]? {
        switch self {
        case .array(let values), .set(let values), .push(let values): values
        default: nil
        }
    }

    /// The entries of a map.
    package var mapEntries: [RESPMapEntry]? {
        if case .map(let entries) = self { return entries }
        return nil
    }

    package var boolean: Bool? {
        if case .boolean(let value) = self { return value }
        return nil
    }

    package var double: Double? {
        if case .double(let value) = self { return value }
        return nil
    }
}
