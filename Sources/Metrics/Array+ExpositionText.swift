/// Appenders for the pieces of the Prometheus text format (version 0.0.4).
///
/// They write straight into the scrape buffer so a scrape is one growing `[UInt8]`, not a
/// pile of intermediate strings.
extension Array where Element == UInt8 {
    mutating func appendText(_ text: String) {
        append(contentsOf: text.utf8)
    }

    /// HELP text: backslash and newline are escaped; quotes are not (the format says so).
    mutating func appendEscapedHelp(_ help: String) {
        for byte in help.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): appendText(#"\\"#)
            case UInt8(ascii: "\n"): appendText(#"\n"#)
            default: append(byte)
            }
        }
    }

    /// A label value: backslash, double quote and newline are escaped.
    mutating func appendEscapedLabelValue(_ value: String) {
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): appendText(#"\\"#)
            case UInt8(ascii: "\""): appendText(#"\""#)
            case UInt8(ascii: "\n"): appendText(#"\n"#)
            default: append(byte)
            }
        }
    }

    /// An integer in decimal, written digit by digit so a scrape need not build a `String`.
    mutating func appendInteger(_ value: Int) {
        if value < 0 { append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        guard magnitude != 0 else {
            append(UInt8(ascii: "0"))
            return
        }
        let start = count
        while magnitude != 0 {
            append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        }
        self[start...].reverse()
    }

    /// A sample value or `le` bound: `+Inf`, `-Inf`, `NaN`, whole numbers without a fraction
    /// or exponent (`1`, not `1.0` or `1e+00`), anything else in Swift's shortest round-trip
    /// form (`0.0005`, `1e-07`), which Prometheus parses back to the same `Double`.
    mutating func appendSampleValue(_ value: Double) {
        if value.isNaN {
            appendText("NaN")
        } else if value.isInfinite {
            appendText(value > 0 ? "+Inf" : "-Inf")
        } else if value.rounded(.towardZero) == value, value.magnitude < 0x1p63 {
            appendInteger(Int(value))
        } else {
            appendText(value.description)
        }
    }
}
