/// One reply from Redis, in RESP2 or RESP3.
///
/// Payloads stay bytes, not `String`: keys and values are binary safe, and decoding them is the
/// caller's choice. The three wire forms of "no value" (`$-1`, `*-1` and RESP3's `_`) are all
/// `.null`, since RESP3 made them one type and no command gives them different meanings.
/// Attributes (`|`) are not values: the parser checks and skips them.
package enum RESPValue: Sendable, Hashable {
    /// `+`: a short status such as `OK` or `PONG`.
    case simpleString([UInt8])
    /// `-`: an error reply, such as `NOSCRIPT No matching script.`
    case simpleError([UInt8])
    /// `:`: a signed 64-bit integer.
    case integer(Int64)
    /// `$`: binary-safe bytes.
    case bulkString([UInt8])
    /// `$-1`, `*-1` or `_`.
    case null
    /// `*`: elements in order.
    case array([RESPValue])
    /// `#t` or `#f`.
    case boolean(Bool)
    /// `,`: a double, including `inf`, `-inf` and `nan` (which, as in `Double`, is not equal to
    /// itself: compare descriptions to tell replies apart).
    case double(Double)
    /// `(`: an integer of any size, as its decimal text (an optional sign, then digits).
    case bigNumber(String)
    /// `!`: an error reply whose message may hold any bytes.
    case bulkError([UInt8])
    /// `=`: text with its three-byte format, such as `txt` or `mkd`.
    case verbatimString(format: String, text: [UInt8])
    /// `%`: key-value pairs in the order sent (keys may repeat: nothing is deduplicated).
    case map([RESPMapEntry])
    /// `~`: elements in the order sent (nothing is deduplicated).
    case set([RESPValue])
    /// `>`: out-of-band data such as a pub/sub message, which answers no command.
    case push([RESPValue])
}

/// One key-value pair of a RESP3 map.
///
/// A struct rather than a tuple so that `RESPValue` can be `Hashable`; a list rather than a
/// dictionary because keys are themselves replies and their order can matter (`HELLO`).
package struct RESPMapEntry: Sendable, Hashable {
    package var key: RESPValue
    package var value: RESPValue

    package init(key: RESPValue, value: RESPValue) {
        self.key = key
        self.value = value
    }
}
