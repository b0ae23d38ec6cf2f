/// An environment variable with a value the stub cannot use.
public struct StubConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let variable: String
    public let message: String

    public init(variable: String, message: String) {
        self.variable = variable
        self.message = message
    }

    public var description: String { "\(variable) \(message)" }
}
