/// What the command line asks for. The service takes its settings from the environment only, so
/// any other argument (`--port 9000`, `-V`) is refused rather than silently ignored: an operator
/// who typed it expects it to do something.
package enum CommandLineAction: Equatable, Sendable {
    case run
    case help
    case version
    /// The first argument not understood.
    case unknown(String)

    package init(arguments: [String]) {
        if let unknown = arguments.first(where: { !["--help", "-h", "--version"].contains($0) }) {
            self = .unknown(unknown)
        } else if arguments.contains("--help") || arguments.contains("-h") {
            self = .help
        } else {
            self = arguments.contains("--version") ? .version : .run
        }
    }

    /// Printed to standard error with an unknown argument.
    package static let usage = """
        usage: product-details [--help | -h | --version]
        Settings are environment variables (PORT=9000 product-details); --help lists them.
        """
}
