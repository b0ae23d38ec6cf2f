/// A setting that cannot be used; start-up stops with this message.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let setting: String
    public let reason: String

    /// Without a final period: start-up adds ". See --help.", and some reasons (a parser's
    /// detail) come as sentences.
    public var description: String {
        "invalid \(setting): \(reason.hasSuffix(".") ? String(reason.dropLast()) : reason)"
    }
}
