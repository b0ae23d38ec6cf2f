/// The grammar Prometheus imposes on metric and label names.
///
/// Names are checked at registration, with a precondition, because a bad name is a programming
/// error that would otherwise make every scrape unparseable.
enum PrometheusNames {
    /// `[a-zA-Z_:][a-zA-Z0-9_:]*`
    static func isValidMetricName(_ name: String) -> Bool {
        matches(name, allowingColon: true)
    }

    /// `[a-zA-Z_][a-zA-Z0-9_]*`
    static func isValidLabelName(_ name: String) -> Bool {
        matches(name, allowingColon: false)
    }

    /// Label names starting with `__` belong to Prometheus itself.
    static func isReservedLabelName(_ name: String) -> Bool {
        name.hasPrefix("__")
    }

    private static func matches(_ name: String, allowingColon: Bool) -> Bool {
        var bytes = name.utf8.makeIterator()
        guard let first = bytes.next(), isLetter(first) || first == UInt8(ascii: "_")
            || (allowingColon && first == UInt8(ascii: ":"))
        else { return false }
        while let byte = bytes.next() {
            let allowed = isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "_")
                || (allowingColon && byte == UInt8(ascii: ":"))
            if !allowed { return false }
        }
        return true
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
