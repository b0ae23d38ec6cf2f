/// A setting that cannot be used; start-up stops with this message.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let setting: String
    public let reason: String

    public var description: String { "invalid \(setting): \(reason)" }
}
