/// A setting that cannot be used; start-up stops with this message.
package struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    package let setting: String
    package let reason: String

    /// Without a final period: start-up adds ". See --help.", and some reasons (a parser's
    /// detail) come as sentences.
    package var description: String {
        "invalid \(setting): \(reason.hasSuffix(".") ? String(reason.dropLast()) : reason)"
    }
}
