/// An environment variable with a value the stub cannot use.
package struct StubConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    package let variable: String
    package let message: String

    package init(variable: String, message: String) {
        self.variable = variable
        self.message = message
    }

    package var description: String { "\(variable) \(message)" }
}
